"""``vectorize(f, signature=...)`` against ``numpy.vectorize(f, signature=...)`` itself.

numpy.vectorize is the reference here: same values, shapes and dtype kinds, the same errors
with the same messages. Elementwise per-example code on core-dimension arrays must run truly
vectorized (``fallback="error"`` and no fallback warning); operations the engine does not
batch yet (reductions, indexing, ``np.dot``) must raise `VectorizeError` under
``fallback="error"`` or agree with numpy under ``fallback="warn"`` (its per-example loop).
"""

from __future__ import annotations

import functools
import math
import re
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vectorize import VectorizeError, vectorize
from vectorize.api import VectorizeFallbackWarning

# ------------------------------------------------------------------------------- helpers


def assert_same(got, ref, what="result"):
    """Same container, shape, dtype kind and values (NaN equal to NaN)."""
    if isinstance(ref, tuple):
        assert isinstance(got, tuple), f"{what}: {type(got).__name__} is not a tuple"
        assert len(got) == len(ref), f"{what}: {len(got)} outputs != {len(ref)}"
        for index, (g, r) in enumerate(zip(got, ref)):
            assert_same(g, r, f"{what}[{index}]")
        return
    assert isinstance(got, np.ndarray), f"{what}: {type(got).__name__} is not an array"
    assert got.shape == ref.shape, f"{what}: shape {got.shape} != {ref.shape}"
    assert got.dtype.kind == ref.dtype.kind, f"{what}: dtype {got.dtype} != {ref.dtype}"
    if ref.dtype.kind in "fc":
        np.testing.assert_allclose(got, ref, rtol=1e-6 if ref.dtype.itemsize <= 4 else 1e-12,
                                   equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(got, ref, err_msg=what)


def out_dtypes(result):
    results = result if isinstance(result, tuple) else (result,)
    return [r.dtype.char for r in results]


def run_vectorized(f, signature, *args, otypes=None, excluded=None, **kwargs):
    """Ours with fallback='error', checked to run without any per-example fallback (no
    warning, and numpy's own loop never runs)."""
    ours = vectorize(f, signature=signature, otypes=otypes, excluded=excluded,
                     fallback="error")

    def no_loop(*_):
        raise AssertionError("numpy.vectorize's loop ran instead of the generated code")

    ours._numpy_loop = no_loop
    with warnings.catch_warnings():
        warnings.simplefilter("error", VectorizeFallbackWarning)
        return ours(*args, **kwargs), ours


def reference(f, signature, *args, otypes=None, excluded=None, **kwargs):
    ref = np.vectorize(f, signature=signature, otypes=otypes, excluded=excluded)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return ref(*args, **kwargs)


def check_vectorized(f, signature, *args, otypes=None, excluded=None, **kwargs):
    """Ours (truly vectorized) equals numpy.vectorize. On an empty loop numpy needs `otypes`;
    ours does not (the dtype comes from the generated code): numpy is then given ours."""
    got, _ = run_vectorized(f, signature, *args, otypes=otypes, excluded=excluded, **kwargs)
    size = _loop_size(signature, args, kwargs, excluded)
    ref_otypes = otypes if otypes is not None or size else out_dtypes(got)
    ref = reference(f, signature, *args, otypes=ref_otypes, excluded=excluded, **kwargs)
    assert_same(got, ref)
    if not size and otypes is None and not kwargs and not excluded:
        # the dtypes of an empty result are those numpy gives one example
        ones = [np.ones(tuple(max(n, 1) for n in np.shape(a)), np.asarray(a).dtype)
                for a in args]
        assert out_dtypes(got) == out_dtypes(reference(f, signature, *ones))
    return got


def _loop_size(signature, args, kwargs, excluded):
    excluded = excluded or set()
    inputs = [a for i, a in enumerate(args) if i not in excluded]
    inputs += [v for k, v in kwargs.items() if k not in excluded]
    in_dims = np.lib._function_base_impl._parse_gufunc_signature(signature)[0]
    loops = [np.shape(a)[:np.ndim(a) - len(d)] for a, d in zip(inputs, in_dims)]
    return math.prod(np.broadcast_shapes(*loops))


def raised(call):
    try:
        call()
    except Exception as exc:   # noqa: BLE001 - the reference's exception, whatever it is
        return exc
    raise AssertionError("the reference did not raise")


def assert_raises_like_numpy(f, signature, *args, fallback="error", otypes=None, **kwargs):
    """Ours raises numpy.vectorize's exception: same type, same message."""
    expected = raised(lambda: np.vectorize(f, signature=signature, otypes=otypes)(
        *args, **kwargs))
    ours = vectorize(f, signature=signature, otypes=otypes, fallback=fallback)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", VectorizeFallbackWarning)
        with pytest.raises(type(expected), match=f"^{re.escape(str(expected))}$"):
            ours(*args, **kwargs)


# --------------------------------------------------------- elementwise per-example code


def twice_plus_one(a):
    return a * 2 + 1


def scale_shift(a, s):
    return a * s + 1


def sum_and_product(a, b):
    return a + b, a * b


def matrix_minus_row(m, w):
    return m * w - 1


def branch_on_scalar(a, s):
    if s > 0:
        return a * s, s + 1
    return a - s, s * 2


def scalar_times_vector(s, a):
    return s * a


def clipped(a, lo):
    return np.minimum(np.maximum(a, lo), lo + 2)


ELEMENTWISE = [
    ("(n)->(n)", twice_plus_one),
    ("(n),()->(n)", scale_shift),
    ("(n),(n)->(n),(n)", sum_and_product),
    ("(m,n),(n)->(m,n)", matrix_minus_row),
    ("(n),()->(n),()", branch_on_scalar),
    ("(),(n)->(n)", scalar_times_vector),
    ("(n,k),()->(n,k)", clipped),
]

DTYPES = [np.float64, np.float32, np.int64, np.int32]


@st.composite
def call_shapes(draw, signature):
    """Shapes of the inputs: a loop shape (0 to 3 dimensions, sizes 0 to 3) of which each
    input has a trailing part, some dimensions 1 (broadcast), and core sizes 0 to 4."""
    in_dims = np.lib._function_base_impl._parse_gufunc_signature(signature)[0]
    names = sorted({d for dims in in_dims for d in dims})
    sizes = {name: draw(st.integers(0, 4)) for name in names}
    loop = draw(st.lists(st.integers(0, 3), max_size=3))
    shapes = []
    for dims in in_dims:
        own = loop[draw(st.integers(0, len(loop))):]
        own = [1 if draw(st.integers(0, 3)) == 0 else n for n in own]
        shapes.append(tuple(own) + tuple(sizes[d] for d in dims))
    return shapes


def arrays_for(shapes, dtype, seed):
    rng = np.random.default_rng(seed)
    out = []
    for shape in shapes:
        values = rng.normal(size=shape) * 4
        out.append(values.astype(dtype) if np.dtype(dtype).kind == "f" else
                   np.round(values).astype(dtype))
    return out


@pytest.mark.parametrize("signature,f", ELEMENTWISE, ids=[f.__name__ for _, f in ELEMENTWISE])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_elementwise_matches_numpy_vectorize(signature, f, data):
    shapes = data.draw(call_shapes(signature))
    dtype = data.draw(st.sampled_from(DTYPES))
    args = arrays_for(shapes, dtype, data.draw(st.integers(0, 2**16)))
    check_vectorized(f, signature, *args)


@pytest.mark.parametrize("signature,f", ELEMENTWISE, ids=[f.__name__ for _, f in ELEMENTWISE])
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_elementwise_with_otypes(signature, f, data):
    shapes = data.draw(call_shapes(signature))
    args = arrays_for(shapes, np.float64, 0)
    n_out = len(np.lib._function_base_impl._parse_gufunc_signature(signature)[1])
    otypes = data.draw(st.lists(st.sampled_from(["f", "d", "i", "F"]), min_size=n_out,
                                max_size=n_out))
    got = check_vectorized(f, signature, *args, otypes=otypes)
    for g, t in zip(got if isinstance(got, tuple) else (got,), otypes):
        assert g.dtype == np.dtype(t)


def test_generated_code_is_batched_over_one_flattened_axis():
    a = np.arange(24.0).reshape(2, 3, 4)
    got, ours = run_vectorized(scale_shift, "(n),()->(n)", a, np.arange(3.0))
    assert_same(got, reference(scale_shift, "(n),()->(n)", a, np.arange(3.0)))
    source = ours.source(a, np.arange(3.0))
    assert "batched float64 of per-example shape (4,)" in source
    assert "s[:, None]" in source       # the per-example scalar padded after the batch axis
    assert "for " not in source.split('"""')[-1]


def test_unbatched_core_input_is_passed_once():
    """An input without loop dimensions is the same for every example: passed unbatched."""
    a, w = np.arange(12.0).reshape(3, 4), np.array([1.0, -2.0, 3.0, 0.5])
    got, ours = run_vectorized(matrix_minus_row, "(m,n),(n)->(m,n)", a[:, None, :], w)
    assert_same(got, reference(matrix_minus_row, "(m,n),(n)->(m,n)", a[:, None, :], w))
    source = ours.source(a[:, None, :], w)
    assert "w: ndarray" in source


def test_no_loop_dimensions_gives_the_core_shape():
    got = check_vectorized(twice_plus_one, "(n)->(n)", np.arange(5.0))
    assert got.shape == (5,)
    got = check_vectorized(scale_shift, "(),()->()", 2.0, 3.0)
    assert isinstance(got, np.ndarray) and got.shape == ()   # a 0-d array, as numpy


def test_lists_and_scalars_are_converted_like_numpy():
    check_vectorized(scale_shift, "(n),()->(n)", [[1, 2, 3], [4, 5, 6]], [2, 3])
    check_vectorized(scale_shift, "(n),()->(n)", [1.0, 2.0], 3)


def test_specializations_are_keyed_by_core_rank_not_size():
    ours = vectorize(twice_plus_one, signature="(n)->(n)", fallback="error")
    for shape in [(3, 4), (5, 2), (2, 7), (1, 9), (4, 0)]:
        a = np.ones(shape)
        assert_same(ours(a), reference(twice_plus_one, "(n)->(n)", a))
    assert len(ours._specs) == 1
    ours = vectorize(scale_shift, signature="(n),()->(n)", fallback="error")
    ours(np.ones((3, 4)), np.ones(3))
    ours(np.ones((3, 6)), np.ones(3))
    ours(np.ones((3, 6)), 2.0)          # `s` unbatched now: a second specialization
    assert len(ours._specs) == 2


def test_results_are_new_arrays_not_views_of_the_inputs():
    def identity(a):
        return a

    a = np.arange(6.0).reshape(2, 3)
    for signature, arg in [("(n)->(n)", a), ("(n)->(n)", a[0]), ("()->()", a)]:
        got, _ = run_vectorized(identity, signature, arg)
        assert not np.shares_memory(got, a)
        assert got.flags.writeable
        assert_same(got, reference(identity, signature, arg))
    got = vectorize(identity, fallback="error")(a)   # without a signature too
    assert not np.shares_memory(got, a)


def const_and_input(a, b):
    return b, 2.5


def test_unbatched_outputs_are_writeable_copies():
    a, b = np.ones((4, 3)), np.arange(3.0)
    got, _ = run_vectorized(const_and_input, "(n),(n)->(n),()", a, b)
    assert_same(got, reference(const_and_input, "(n),(n)->(n),()", a, b))
    for out in got:
        assert out.flags.writeable and out.flags.owndata and 0 not in out.strides
    assert not np.shares_memory(got[0], b)


def test_broadcast_input_results_are_writeable_copies():
    a = np.arange(3.0)
    got, _ = run_vectorized(scale_shift, "(n),()->(n)", a, np.ones((2, 2)))
    assert got.shape == (2, 2, 3) and got.flags.writeable
    got[0, 0, 0] = 99.0
    assert got[1, 1, 0] == 1.0


def test_several_outputs_are_a_tuple():
    a, b = np.ones((2, 3)), np.arange(3.0)
    got = check_vectorized(sum_and_product, "(n),(n)->(n),(n)", a, b)
    assert isinstance(got, tuple) and len(got) == 2
    got = check_vectorized(branch_on_scalar, "(n),()->(n),()", np.ones((4, 2)),
                           np.array([-1.0, 0.0, 1.0, 2.0]))
    assert got[0].shape == (4, 2) and got[1].shape == (4,)


def test_fewer_otypes_than_outputs_truncates_like_numpy():
    a = np.ones((2, 3))
    got, _ = run_vectorized(sum_and_product, "(n),(n)->(n),(n)", a, a, otypes=["f"])
    ref = reference(sum_and_product, "(n),(n)->(n),(n)", a, a, otypes=["f"])
    assert_same(got, ref)


def test_a_subclass_is_kept_like_numpy():
    class Sub(np.ndarray):
        pass

    a = np.arange(6.0).reshape(2, 3).view(Sub)
    got = check_vectorized(twice_plus_one, "(n)->(n)", a)
    assert type(got) is Sub


# ------------------------------------------------------------------- excluded and keywords


def weighted(a, b, scale=1.0):
    return (a - b) * scale


def moded(mode, a):
    if mode == "double":
        return a * 2
    return a * 3


def test_excluded_keyword_is_passed_as_is():
    a, b = np.ones((2, 3)), np.arange(3.0)
    for kwargs in [{}, {"scale": 2.5}, {"scale": -1}]:
        check_vectorized(weighted, "(n),(n)->(n)", a, b, excluded={"scale"}, **kwargs)


def test_excluded_positional_argument_is_passed_as_is():
    a = np.arange(6.0).reshape(3, 2)
    for mode in ["double", "triple", "double"]:
        check_vectorized(moded, "(n)->(n)", mode, a, excluded={0})


def test_excluded_by_name_does_not_exclude_a_positional_argument():
    """numpy.vectorize excludes positional arguments by index only, keywords by name."""
    a, b = np.ones((2, 3)), np.arange(3.0)
    check_vectorized(weighted, "(n),(n),()->(n)", a, b, np.array([1.0, 2.0]),
                     excluded={"scale"})


def test_keyword_inputs_take_the_core_dimensions_in_call_order():
    """numpy.vectorize matches keyword arguments to the signature in the order they are
    written, not in the order of the parameters."""
    a, s = np.arange(12.0).reshape(3, 4), np.array([1.0, 2.0, 3.0])
    check_vectorized(scale_shift, "(n),()->(n)", a=a, s=s)
    check_vectorized(scale_shift, "(),(n)->(n)", a=s[:, None], s=a)   # s first: s gets (n)
    check_vectorized(scale_shift, "(n),()->(n)", s=a, a=s[:, None])
    check_vectorized(scale_shift, "(n),()->(n)", a, s=s)


def test_defaults_are_not_inputs():
    a, b = np.ones((2, 3)), np.arange(3.0)
    check_vectorized(weighted, "(n),(n)->(n)", a, b)
    check_vectorized(weighted, "(n),(n),()->(n)", a, b, 3.0)


def test_bound_leading_arguments_are_passed_as_is():
    w = np.array([1.0, 2.0, 3.0])
    bound = functools.partial(scalar_times_vector, 2.0)
    check_vectorized(bound, "(n)->(n)", np.ones((4, 3)) * w)

    class Model:
        def __init__(self, w):
            self.w = w

        def apply(self, a):
            return a * 2 - 1

    model = Model(w)
    check_vectorized(model.apply, "(n)->(n)", np.ones((4, 3)))


def project(a, w):
    return np.sum(a.dot(w))


def test_excluded_array_rank_is_part_of_the_specialization():
    """`a.dot(w)` of a matrix `w` and of a vector `w` are different code."""
    a = np.arange(6.0).reshape(2, 3)
    ours = vectorize(project, signature="(n)->()", excluded={1})
    for w in [np.ones((3, 2)), np.arange(3.0), np.arange(12.0).reshape(3, 4), np.ones(3)]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", VectorizeFallbackWarning)
            got = ours(a, w)
        assert_same(got, reference(project, "(n)->()", a, w, excluded={1}))
    ours = vectorize(plus_total, excluded={1})          # without a signature too
    x = np.arange(3.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", VectorizeFallbackWarning)
        for w in [np.ones(()), np.arange(3.0), np.ones((2, 2)), np.float64(2.0)]:
            assert_same(ours(x, w), np.vectorize(plus_total, excluded={1})(x, w))


def plus_total(x, w):
    return x + np.sum(w)


def keyword_only(a, *, s):
    return a * s


def test_keyword_only_parameters():
    a = np.ones((2, 3))
    check_vectorized(keyword_only, "(n),()->(n)", a, s=np.array([2.0, 3.0]))
    assert_raises_like_numpy(keyword_only, "(n),()->(n)", a, np.array([2.0, 3.0]))
    ours = vectorize(keyword_only, fallback="error")      # without a signature too
    assert_same(ours(np.arange(3.0), s=2.0), np.vectorize(keyword_only)(np.arange(3.0), s=2.0))
    with pytest.raises(TypeError, match="takes 1 positional argument but 2 were given"):
        ours(np.arange(3.0), 2.0)


def overwrite_first(a):
    a[0] = 5.0
    return a


def test_writing_into_an_input_never_changes_the_callers_array():
    """numpy.vectorize hands out read-only views, so the write raises there."""
    a = np.ones((2, 3))
    expected = raised(lambda: np.vectorize(overwrite_first, signature="(n)->(n)")(a))
    try:
        vectorize(overwrite_first, signature="(n)->(n)", fallback="error")(a)
    except VectorizeError:
        pass
    except type(expected) as exc:
        assert str(exc) == str(expected)
    else:
        raise AssertionError("writing into an input did not raise")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", VectorizeFallbackWarning)
        with pytest.raises(type(expected), match=re.escape(str(expected))):
            vectorize(overwrite_first, signature="(n)->(n)")(a)
    assert (a == 1.0).all()


class WriteableProbe:
    """Records whether the array it is called with is writeable (no batching rule: called
    on unbatched values only, as it is)."""

    def __call__(self, w):
        self.writeable = w.flags.writeable
        return 1.0


PROBE = WriteableProbe()


def probed(a, w):
    return a * float(PROBE(w))


def test_inputs_are_handed_out_read_only_like_numpy():
    a, w = np.ones((2, 3)), np.ones(3)
    reference(probed, "(n),(n)->(n)", a, w)
    assert PROBE.writeable is False
    del PROBE.writeable
    got, _ = run_vectorized(probed, "(n),(n)->(n)", a, w)
    assert PROBE.writeable is False
    assert_same(got, reference(probed, "(n),(n)->(n)", a, w))
    assert w.flags.writeable and a.flags.writeable     # the caller's arrays are untouched


def first_or_zero(a):
    if len(a) > 0:
        return a[0]
    return 0.0


def test_a_fallback_at_one_core_size_does_not_stick_to_the_others():
    """The abstract examples have the first call's core sizes: a fallback made for an empty
    core (where `a[0]` does not fit the example) must not serve later sizes."""
    ours = vectorize(first_or_zero, signature="(n)->()")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", VectorizeFallbackWarning)
        for n in (0, 3, 0, 1):
            a = np.arange(2.0 * n).reshape(2, n)
            assert_same(ours(a), reference(first_or_zero, "(n)->()", a))
    try:
        vectorize(first_or_zero, signature="(n)->()", fallback="error")(np.ones((2, 3)))
    except VectorizeError:
        return   # not batched at any size yet
    assert "runs per example" not in ours.source(np.ones((4, 5)))
    assert_same(ours(np.ones((4, 5))), reference(first_or_zero, "(n)->()", np.ones((4, 5))))


def uses_try(a):
    # (a `try` around arithmetic with handlers is vectorized, and a `finally` lowered; a
    # `finally` that returns is refused)
    try:
        a = a * 2
    finally:
        return a  # noqa: B012


def test_a_fallback_warns_once_whatever_the_core_sizes():
    ours = vectorize(uses_try, signature="(n)->(n)")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in range(1, 9):
            a = np.ones((2, n))
            assert_same(ours(a), reference(uses_try, "(n)->(n)", a))
    assert len([w for w in caught if issubclass(w.category, VectorizeFallbackWarning)]) == 1
    assert len(ours._specs) <= 5    # a few sizes are tried, then the fallback serves all
    with pytest.raises(VectorizeError):
        vectorize(uses_try, signature="(n)->(n)", fallback="error")(np.ones((2, 3)))


# ------------------------------------------------------------------------------ size 0


@pytest.mark.parametrize("shape", [(0, 3), (2, 0, 3), (0, 0)])
def test_empty_loops_need_no_otypes(shape):
    a = np.ones(shape, np.int32)
    got, _ = run_vectorized(twice_plus_one, "(n)->(n)", a)
    assert got.shape == shape and got.dtype == np.int32
    ref = reference(twice_plus_one, "(n)->(n)", a, otypes=[np.int32])
    assert_same(got, ref)
    got, _ = run_vectorized(sum_and_product, "(n),(n)->(n),(n)", a, a.astype(float))
    assert [g.shape for g in got] == [shape, shape]
    assert [g.dtype for g in got] == [np.float64, np.float64]


def test_empty_loop_with_new_output_dimensions_raises_numpys_error():
    def first_two(a):
        return a[:2]

    a = np.ones((0, 3))
    assert_raises_like_numpy(first_two, "(n)->(m)", a, otypes=["d"])
    with pytest.raises(ValueError, match="new output dimensions on size 0 inputs"):
        vectorize(first_two, signature="(n)->(m)", fallback="loop")(a)


def test_empty_loop_with_the_wrong_number_of_outputs_follows_numpy():
    """numpy never calls pyfunc on an empty loop, so it never counts its outputs."""
    a = np.ones((0, 2))
    got = vectorize(pair, signature="()->()", otypes=["d"], fallback="error")(a)
    assert_same(got, reference(pair, "()->()", a, otypes=["d"]))
    assert_raises_like_numpy(pair, "()->()", a)


def biggest(a):
    return a.max()


def test_empty_loop_of_empty_cores_follows_numpy():
    """A reduction without identity of an empty core raises for every example, but an empty
    loop has no example: numpy returns an empty result (with otypes)."""
    for shape in [(0, 0), (3, 0, 0)]:
        a = np.ones(shape)
        got = vectorize(biggest, signature="(n)->()", otypes=["d"], fallback="error")(a)
        assert_same(got, reference(biggest, "(n)->()", a, otypes=["d"]))
        assert_raises_like_numpy(biggest, "(n)->()", a)
        warm = vectorize(biggest, signature="(n)->()", otypes=["d"], fallback="error")
        warm(np.ones((2, 3)))   # a translation made for n = 3 then fails on the empty core
        assert_same(warm(a), reference(biggest, "(n)->()", a, otypes=["d"]))
    assert_raises_like_numpy(biggest, "(n)->()", np.ones((2, 0)))


def test_empty_loop_that_falls_back_follows_numpy():
    def mean(a):
        return a.mean()

    a = np.ones((0, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", VectorizeFallbackWarning)
        got = vectorize(mean, signature="(n)->()", otypes=["d"])(a)
    assert_same(got, reference(mean, "(n)->()", a, otypes=["d"]))


# ------------------------------------------------------------------------------- errors


def add(a, b):
    return a + b


def second_input_twice(a, b):
    return b * 2


def double(x):
    return x * 2


def pair(x):
    return x, x * 2


INPUT_ERRORS = [
    ("too-few-args", add, "(n),(n)->(n)", ([1, 2],)),
    ("too-many-args", add, "()->()", (1, 2)),
    ("not-enough-dims", add, "(n),(n)->(n)", (1, 2)),
    ("not-enough-dims-2d", add, "(m,n),(n)->(m,n)", (np.ones(3), np.ones(3))),
    ("inconsistent-core", add, "(n),(n)->(n)", ([1, 2], [1, 2, 3])),
    ("inconsistent-core-2d", add, "(m,n),(n,m)->(m,n)", (np.ones((2, 3)), np.ones((2, 3)))),
    ("loop-mismatch", add, "(n),(n)->(n)", (np.ones((2, 3)), np.ones((3, 3)))),
]

OUTPUT_ERRORS = [
    ("output-inconsistent", second_input_twice, "(n),(m)->(n)", (np.ones((2, 3)),
                                                                 np.ones((2, 4)))),
    ("output-not-enough-dims", double, "(n)->(n,m)", (np.ones((2, 3)),)),
    ("output-extra-dims", double, "(n)->()", (np.ones((2, 3)),)),
    ("output-extra-dims-size-1", double, "(n)->()", (np.ones((2, 1)),)),
    ("output-extra-dims-vs-core", second_input_twice, "(n),(m,n)->(n)",
     (np.ones((2, 3)), np.ones((2, 2, 3)))),
    ("too-few-outputs", double, "()->(),()", (1.0,)),
    ("too-many-outputs", pair, "()->()", ([1.0, 2.0],)),
    ("output-shared-dim", pair, "(n),()->(n),(n)", None),
]


@pytest.mark.parametrize("fallback", ["error", "warn"])
@pytest.mark.parametrize("name,f,signature,args", INPUT_ERRORS,
                         ids=[case[0] for case in INPUT_ERRORS])
def test_input_errors_are_numpys(name, f, signature, args, fallback):
    assert_raises_like_numpy(f, signature, *args, fallback=fallback)


def scaled_pair(a, s):
    return a * s, s * 2


@pytest.mark.parametrize("fallback", ["error", "warn"])
@pytest.mark.parametrize("name,f,signature,args", OUTPUT_ERRORS,
                         ids=[case[0] for case in OUTPUT_ERRORS])
def test_output_errors_are_numpys(name, f, signature, args, fallback):
    if args is None:   # the second output's `n` is a per-example scalar: not enough dims
        f, args = scaled_pair, (np.ones((2, 3)), np.ones(2))
    assert_raises_like_numpy(f, signature, *args, fallback=fallback)


def test_output_error_for_extra_dims_is_not_a_vectorize_error():
    """A result with more dimensions than the signature gives is the user's error: numpy's
    own (its loop decides), not a VectorizeError."""
    with pytest.raises(ValueError, match="setting an array element with a sequence"):
        vectorize(double, signature="(n)->()", fallback="error")(np.ones((2, 3)))


def test_output_with_leading_dims_of_size_1_is_assigned_like_numpy():
    """numpy assigns a (1, n) result into an (n,) slot; so does ours, vectorized."""
    a, b = np.ones((2, 3)), np.arange(6.0).reshape(2, 1, 3)
    got, _ = run_vectorized(second_input_twice, "(n),(m,n)->(n)", a, b)
    assert_same(got, reference(second_input_twice, "(n),(m,n)->(n)", a, b))
    got, _ = run_vectorized(second_input_twice, "(n),(m,n)->(n)", a, b[0])
    assert_same(got, reference(second_input_twice, "(n),(m,n)->(n)", a, b[0]))


def test_invalid_signature_is_rejected_at_construction():
    for bad in ["(x)(y)->()", "(x),(y)->", "((x))->(x)"]:
        expected = raised(lambda bad=bad: np.vectorize(add, signature=bad))
        with pytest.raises(ValueError, match=f"^{re.escape(str(expected))}$"):
            vectorize(add, signature=bad)
    ours = vectorize(twice_plus_one, signature=" ( n ) -> ( n ) ", fallback="error")
    assert_same(ours(np.ones((2, 3))), reference(twice_plus_one, "(n)->(n)", np.ones((2, 3))))


def test_binding_errors_are_pythons():
    a = np.ones((2, 3))
    expected = raised(lambda: np.vectorize(add, signature="(n),(n)->(n)")(a, c=a))
    with pytest.raises(type(expected), match=re.escape(str(expected).split("(")[-1])):
        vectorize(add, signature="(n),(n)->(n)", fallback="error")(a, c=a)


# ------------------------------------------- per-example operations the engine may not batch
# Reductions, indexing and linear algebra of per-example arrays: vectorized where the engine
# has their rules; otherwise VectorizeError under fallback="error" and numpy's loop (equal
# results, one warning) under "warn". Both outcomes pass; a wrong result never does.


def mean(a):
    return a.mean()


def center(a):
    return a - a.mean()


def dot(a, b):
    return np.dot(a, b)


def first(a):
    return a[0]


def all_but_last(a):
    return a[:-1]


def matvec(m, v):
    return m @ v


def sum_of_squares(a):
    return np.sum(a * a)


def builtin_max(a):
    return max(a)


def norm_and_mean(a, b):
    return np.dot(a, b), a.sum()


def normalize(a):
    return a / np.sqrt(np.sum(a * a))


def method_dot(a, b):
    return a.dot(b) + 1.0


ARRAY_OPS = [
    ("(n)->()", mean, 1),
    ("(n)->(n)", center, 1),
    ("(n),(n)->()", dot, 2),
    ("(n)->()", first, 1),
    ("(n)->(m)", all_but_last, 1),
    ("(m,n),(n)->(m)", matvec, 2),
    ("(n)->()", sum_of_squares, 1),
    ("(n)->()", builtin_max, 1),
    ("(n),(n)->(),()", norm_and_mean, 2),
    ("(n)->(n)", normalize, 1),
    ("(n),(n)->()", method_dot, 2),
]

ARRAY_OP_IDS = [f.__name__ for _, f, _ in ARRAY_OPS]

ARRAY_OPS_SHAPES = [
    ((4,), (3, 3)),          # (loop shape, core sizes m, n)
    ((2, 3), (2, 4)),
    ((), (3, 2)),
    ((5, 1), (1, 3)),
]


def _array_op_args(signature, n_inputs, loop, sizes, seed=0):
    in_dims = np.lib._function_base_impl._parse_gufunc_signature(signature)[0]
    named = {"m": sizes[0], "n": sizes[1]}
    shapes = [tuple(loop) + tuple(named[d] for d in dims) for dims in in_dims[:n_inputs]]
    return arrays_for(shapes, np.float64, seed)


@pytest.mark.parametrize("loop,sizes", ARRAY_OPS_SHAPES, ids=str)
@pytest.mark.parametrize("signature,f,n_inputs", ARRAY_OPS, ids=ARRAY_OP_IDS)
def test_array_ops_raise_or_match_under_error(signature, f, n_inputs, loop, sizes):
    args = _array_op_args(signature, n_inputs, loop, sizes)
    ours = vectorize(f, signature=signature, fallback="error")
    try:
        got = ours(*args)
    except VectorizeError:
        return
    assert_same(got, reference(f, signature, *args))


@pytest.mark.parametrize("loop,sizes", ARRAY_OPS_SHAPES, ids=str)
@pytest.mark.parametrize("signature,f,n_inputs", ARRAY_OPS, ids=ARRAY_OP_IDS)
def test_array_ops_match_numpy_under_warn(signature, f, n_inputs, loop, sizes):
    args = _array_op_args(signature, n_inputs, loop, sizes)
    ours = vectorize(f, signature=signature)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", VectorizeFallbackWarning)
        got = ours(*args)
        again = ours(*args)
    assert_same(got, reference(f, signature, *args))
    assert_same(again, got)
    fallbacks = [w for w in caught if issubclass(w.category, VectorizeFallbackWarning)]
    assert len(fallbacks) <= 1   # warned once per specialization, never per call


@pytest.mark.parametrize("signature,f,n_inputs", ARRAY_OPS, ids=ARRAY_OP_IDS)
def test_array_ops_silent_under_loop(signature, f, n_inputs):
    args = _array_op_args(signature, n_inputs, (3,), (2, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("error", VectorizeFallbackWarning)
        got = vectorize(f, signature=signature, fallback="loop")(*args)
    assert_same(got, reference(f, signature, *args))


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_array_ops_over_random_loop_shapes(data):
    signature, f, n_inputs = data.draw(st.sampled_from(ARRAY_OPS))
    shapes = data.draw(call_shapes(signature))
    shapes = [(*s[:-1], max(s[-1], 1)) for s in shapes]   # reductions need an element
    in_dims = np.lib._function_base_impl._parse_gufunc_signature(signature)[0]
    if len({s[len(s) - len(d):] for s, d in zip(shapes, in_dims) if d == ("n",)}) > 1:
        shapes = [(*s[:-1], shapes[0][-1]) if d[-1:] == ("n",) else s
                  for s, d in zip(shapes, in_dims)]
    args = arrays_for(shapes, np.float64, data.draw(st.integers(0, 2**16)))
    n_out = len(np.lib._function_base_impl._parse_gufunc_signature(signature)[1])
    out_new = any(d not in {x for dims in in_dims for x in dims}
                  for dims in np.lib._function_base_impl._parse_gufunc_signature(signature)[1]
                  for d in dims)
    if _loop_size(signature, args, {}, None) == 0:
        if out_new:
            expected = raised(lambda: reference(f, signature, *args, otypes=["d"] * n_out))
            with pytest.raises(type(expected), match=re.escape(str(expected))):
                vectorize(f, signature=signature, fallback="loop")(*args)
            return
        otypes = ["d"] * n_out
    else:
        otypes = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", VectorizeFallbackWarning)
        got = vectorize(f, signature=signature, otypes=otypes)(*args)
    assert_same(got, reference(f, signature, *args, otypes=otypes))


def test_function_without_source_falls_back_or_raises():
    # np.matmul has a rule: vectorized as the one-line function that calls it
    a, b = np.arange(18.0).reshape((2, 3, 3)), np.arange(6.0).reshape((2, 3))
    got = vectorize(np.matmul, signature="(m,m),(m)->(m)", fallback="error")(a, b)
    assert_same(got, reference(np.matmul, "(m,m),(m)->(m)", a, b))
    # a function without source and without a rule (math.hypot takes any number of
    # arguments): refused, or numpy.vectorize's loop with a warning
    x = np.ones((2, 3))
    with pytest.raises(VectorizeError):
        vectorize(math.hypot, signature="(),()->()", fallback="error")(x, x)
    with pytest.warns(VectorizeFallbackWarning):
        got = vectorize(math.hypot, signature="(),()->()")(x, x)
    assert_same(got, reference(math.hypot, "(),()->()", x, x))


def test_non_numeric_dtypes_fall_back_or_raise():
    def ident(x):
        return x

    arr = np.array([["a", "bc"], ["d", "e"]])
    with pytest.raises(VectorizeError):
        vectorize(ident, signature="(n)->(n)", fallback="error")(arr)
    with pytest.warns(VectorizeFallbackWarning):
        got = vectorize(ident, signature="(n)->(n)")(arr)
    np.testing.assert_array_equal(got, reference(ident, "(n)->(n)", arr))


def test_source_of_a_fallback_says_why():
    ours = vectorize(mean, signature="(n)->()")
    text = ours.source(np.ones((2, 3)))
    try:
        vectorize(mean, signature="(n)->()", fallback="error")(np.ones((2, 3)))
    except VectorizeError:
        assert "runs per example" in text
    else:
        assert "def mean" in text
