"""`vectorize.backends.numpy.merge.blend`, the merge of generated NumPy code: differential
against ``np.where`` (bits, dtype, shape) on both of its paths, and through `vectorize`
against ``numpy.vectorize``."""


import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vectorize import vectorize
from vectorize.backends.numpy import merge

BIG = 2 * merge.MIN_LANES + 3          # the branch-free path, and an odd remainder
DTYPES = [np.float64, np.float32, np.float16, np.int64, np.int32, np.int16, np.int8,
          np.uint64, np.uint32, np.uint8, np.bool_]


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    # bit for bit: NaN payloads and -0.0 included
    assert got.tobytes() == want.tobytes()


def _values(rng, dtype, n):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        x = rng.standard_normal(n).astype(dtype)
        special = np.array([np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0,
                            np.finfo(dtype).max, np.finfo(dtype).tiny], dtype)
        x[rng.integers(0, max(n, 1), min(n, 64))] = rng.choice(special, min(n, 64))
        if n > 2:   # a NaN with a payload of its own
            x.view(np.dtype(f"u{dtype.itemsize}"))[1] |= 0b1011
            x.view(np.dtype(f"u{dtype.itemsize}"))[1] |= np.array(
                np.nan, dtype).view(np.dtype(f"u{dtype.itemsize}"))
        return x
    if dtype.kind == "b":
        return rng.random(n) < 0.5
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


def _mask(rng, n, kind):
    if kind == "random":
        return rng.random(n) < 0.4
    if kind == "sorted":
        return np.arange(n) < n // 3
    return np.ones(n, bool) if kind == "all" else np.zeros(n, bool)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 5, BIG])
@pytest.mark.parametrize("kind", ["random", "sorted", "all", "none"])
def test_blend_is_where(dtype, n, kind):
    rng = np.random.default_rng(n)
    a, b = _values(rng, dtype, n), _values(rng, dtype, n)
    cond = _mask(rng, n, kind)
    _same(merge.blend(cond, a, b), np.where(cond, a, b))


def test_blend_takes_the_branch_free_path_on_mixed_masks(monkeypatch):
    """The test above must exercise the integer path: the counts prove it ran."""
    calls = []
    real = np.subtract
    monkeypatch.setattr(merge.np, "subtract", lambda *a, **k: calls.append(1) or real(*a, **k))
    rng = np.random.default_rng(0)
    a, b = _values(rng, np.float64, BIG), _values(rng, np.float64, BIG)
    cond = rng.random(BIG) < 0.5
    _same(merge.blend(cond, a, b), np.where(cond, a, b))
    assert calls == [1]
    _same(merge.blend(cond, a, -0.0), np.where(cond, a, -0.0))     # a number: the same
    assert calls == [1, 1]
    merge.blend(_mask(rng, BIG, "sorted"), a, b)    # an ordered mask: np.where
    merge.blend(cond[:100], a[:100], b[:100])        # a small batch: np.where
    merge.blend(cond, a.astype(np.float32), 0.5)     # a float beside float32: np.where
    assert calls == [1, 1]


def test_blend_never_writes_its_arguments():
    rng = np.random.default_rng(1)
    a, b = _values(rng, np.float64, BIG), _values(rng, np.float64, BIG)
    cond = rng.random(BIG) < 0.5
    before = a.copy(), b.copy(), cond.copy()
    out = merge.blend(cond, a, b)
    assert out is not a and out is not b and not np.shares_memory(out, a)
    for x, y in zip((a, b, cond), before):
        assert x.tobytes() == y.tobytes()


@pytest.mark.parametrize("case", ["strided", "dtypes", "broadcast", "scalar", "2d",
                                  "complex", "big-endian", "mask-int"])
def test_blend_falls_back_to_where(case):
    """Operands the branch-free path does not take: np.where's answer (dtype promotion,
    broadcasting and all)."""
    rng = np.random.default_rng(2)
    n = BIG
    a, b = rng.standard_normal(n), rng.standard_normal(n)
    cond = rng.random(n) < 0.5
    if case == "strided":
        a2, b2, c2 = rng.standard_normal(2 * n)[::2], rng.standard_normal(2 * n)[::2], \
            (rng.random(2 * n) < 0.5)[::2]
        args = (c2, a2, b2)
    elif case == "dtypes":
        args = (cond, a, b.astype(np.float32))
    elif case == "broadcast":
        args = (cond, a, b[:1])
    elif case == "scalar":
        args = (cond, a, 0.0)
    elif case == "2d":       # (same shapes: the branch-free path, rows and all)
        args = (cond.reshape(-1, 1), a.reshape(-1, 1), b.reshape(-1, 1))
    elif case == "complex":
        args = (cond, a + 1j * b, b + 0j)
    elif case == "big-endian":
        args = (cond, a.astype(">f8"), b.astype(">f8"))
    else:
        args = (cond.astype(np.int64), a, b)
    _same(merge.blend(*args), np.where(*args))


@pytest.mark.parametrize("dtype, number", [
    (np.float64, 5.0), (np.float64, -0.0), (np.float64, float("nan")), (np.float64, -np.inf),
    (np.float64, np.float64(2.5)), (np.float32, 2.5), (np.float32, np.float32(-0.0)),
    (np.int64, 3), (np.int64, -(2**63)), (np.int8, 127), (np.uint8, 0), (np.int64, 2.5),
    (np.uint64, -1), (np.int8, 300), (np.float64, True), (np.int32, np.int64(4))])
@pytest.mark.parametrize("side", [0, 1])
def test_blend_with_a_number(dtype, number, side):
    """One side a number (a constant arm of the `if`): the branch-free path where np.where
    keeps the array's dtype, np.where itself elsewhere; the same outcome either way
    (values, dtype, or the exception)."""
    rng = np.random.default_rng(3)
    x = _values(rng, dtype, BIG)
    cond = rng.random(BIG) < 0.5
    args = (cond, x, number) if side else (cond, number, x)
    try:
        want = np.where(*args)
    except Exception as exc:        # noqa: BLE001 -- the same exception type
        with pytest.raises(type(exc)):
            merge.blend(*args)
        return
    _same(merge.blend(*args), want)


floats = st.floats(allow_nan=True, allow_infinity=True, width=64)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(floats, floats, st.booleans()), max_size=40),
       st.integers(0, 3))
def test_blend_hypothesis_tiled_past_the_threshold(rows, reps):
    """Any values and mask (tiled past `MIN_LANES` with a mixed mask around them)."""
    rng = np.random.default_rng(len(rows))
    extra = BIG * min(reps, 1)
    a = np.concatenate([np.array([r[0] for r in rows], float), rng.standard_normal(extra)])
    b = np.concatenate([np.array([r[1] for r in rows], float), rng.standard_normal(extra)])
    cond = np.concatenate([np.array([r[2] for r in rows], bool), rng.random(extra) < 0.5])
    _same(merge.blend(cond, a, b), np.where(cond, a, b))
    _same(merge.blend(cond, a, rows[0][1] if rows else 0.5),
          np.where(cond, a, rows[0][1] if rows else 0.5))


# ------------------------------------------------------------------- through vectorize
def seed(t, b):
    tmp = t * b
    if tmp > 5:
        root = t * b
    else:
        root = -t
    return root


def pick(x, y):
    if x > y:
        return y
    return x


def pieces(x):
    if x < 0:
        y = x * x
    elif x < 1:
        y = 2 * x + 1
    else:
        y = 5.0
    return y


def count_step(n):
    if n % 2 == 0:
        return n // 2
    return 3 * n + 1


def test_generated_code_calls_blend():
    f = vectorize(seed, fallback="error")
    t = np.linspace(-2, 10, 7)
    assert "root = merge.blend(tmp > 5.0, tmp, -t)" in f.source(t, 1.0)
    assert "from vectorize.backends.numpy import merge" in f.source(t, 1.0)
    assert "y = merge.blend(x < 0.0, x * x, merge.blend(x < 1.0, 2.0 * x + 1.0, 5.0))" in \
        vectorize(pieces, fallback="error").source(t)


@pytest.mark.parametrize("n", [0, 1, 5, BIG])
def test_vectorized_merges_equal_numpy_vectorize(n):
    rng = np.random.default_rng(n + 7)
    t = _values(rng, np.float64, n)
    u = _values(rng, np.float64, n)
    k = rng.integers(-10**6, 10**6, n)
    for f, args in ((seed, (t, 1.0)), (pick, (t, u)), (count_step, (k,)), (pieces, (t,))):
        # (numpy.vectorize needs otypes on an empty batch: those of one example's result)
        one = f(*[a.dtype.type(1) if isinstance(a, np.ndarray) else a for a in args])
        with np.errstate(all="ignore"):     # (NaN compared: both warn, or neither)
            want = np.vectorize(f, otypes=[np.asarray(one).dtype] if not n else None)(*args)
            _same(vectorize(f, fallback="error")(*args), want)


def test_a_user_name_merge_keeps_np_where():
    """The user's own `merge` (a local here) is never shadowed by the runtime's module."""
    def clipped(x):
        merge = x * 2.0
        if merge > 1.0:
            merge = 1.0 + x
        else:
            merge = x - 1.0
        return merge

    f = vectorize(clipped, fallback="error")
    x = np.linspace(-3, 3, 11)
    src = f.source(x)
    assert "merge.blend" not in src and "np.where(" in src
    _same(f(x), np.vectorize(clipped)(x))


def test_a_global_named_merge_keeps_np_where(tmp_path, monkeypatch):
    (tmp_path / "merge_global_mod.py").write_text(
        "import math as merge\n\n\ndef scaled(x):\n    if x > 0.5:\n"
        "        return x * merge.pi\n    return -x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import merge_global_mod

    f = vectorize(merge_global_mod.scaled, fallback="error")
    x = np.linspace(-3, 3, 11)
    src = f.source(x)
    assert "merge.blend" not in src and "np.where(" in src
    _same(f(x), np.vectorize(merge_global_mod.scaled)(x))


def test_a_rewritten_file_needs_no_vectorize(tmp_path):
    """The file rewriter's code must run without this package: its merges are np.where."""
    from vectorize.rewrite import rewrite_text

    text = ("from vectorize import vectorize\n\n\n@vectorize\ndef seed(t: float, "
            "b: float) -> float:\n    tmp = t * b\n    if tmp > 5:\n        root = "
            "t * b\n    else:\n        root = -t\n    return root\n")
    out = rewrite_text(text, str(tmp_path / "seedfile.py")).text
    assert "root = np.where(tmp > 5, tmp, -t)" in out and "vectorize" not in out


def default_or_self(x):
    if x < 0:
        return 0.1
    return x


@pytest.mark.parametrize("n", [1, 5, BIG])
def test_output_type_of_a_blend_is_learned_as_for_np_where(n):
    """Regression: where the code merges per example, the output type is learned from the
    first example on every call, as numpy.vectorize learns it (`SpecFacts.joins`);
    `merge.blend` is such a merge (float32 in, a Python float on one branch: float64 or
    float32 by the first example). With the merge unrecognised, the type learned on the
    first call was kept: float32 where numpy.vectorize gives float64."""
    x = np.linspace(-3, 5, n).astype(np.float32)
    f = vectorize(default_or_self, fallback="error")
    for batch in (x[::-1].copy(), x, x[::-1].copy()):
        _same(f(batch), np.vectorize(default_or_self)(batch))


# ------------------------------------------- the choice kept per place (issue 21)
def _merge_here(cond, a, b):
    return merge.blend(cond, a, b)          # one place: its choice is kept between calls


def _counting_samples(monkeypatch):
    samples = []
    real = merge._mixed
    monkeypatch.setattr(merge, "_mixed", lambda cond: samples.append(1) or real(cond))
    merge._places.clear()
    return samples


def test_the_choice_is_kept_per_place_and_sampled_again_when_losing(monkeypatch):
    """One sample per place, not per call; a place that chose np.where samples again when
    a call's time per lane grows past LOSING times its best; one that chose the
    branch-free form every RESAMPLE calls. The values are np.where's throughout."""
    samples = _counting_samples(monkeypatch)
    # the clock is the test's: every call takes the same time but the one made slow (a real
    # clock on a shared machine made one of five equal calls look LOSING times slower)
    now, step = [0.0], [1.0]

    def clock():
        now[0] += step[0]
        return now[0]

    monkeypatch.setattr(merge, "_clock", clock)
    rng = np.random.default_rng(5)
    a, b = _values(rng, np.float64, BIG), _values(rng, np.float64, BIG)
    ordered, mixed = _mask(rng, BIG, "sorted"), _mask(rng, BIG, "random")
    for _ in range(5):
        _same(_merge_here(ordered, a, b), np.where(ordered, a, b))
    assert samples == [1]
    # the masks become mixed and np.where slow: a slow call (the clock says so) samples again
    step[0] = 100.0
    _same(_merge_here(mixed, a, b), np.where(mixed, a, b))
    step[0] = 1.0
    assert samples == [1]
    _same(_merge_here(mixed, a, b), np.where(mixed, a, b))
    assert len(samples) == 2
    place = next(iter(merge._places.values()))
    assert place.mixed
    for _ in range(merge.RESAMPLE - 1):
        _same(_merge_here(mixed, a, b), np.where(mixed, a, b))
    assert len(samples) == 2
    _same(_merge_here(ordered, a, b), np.where(ordered, a, b))     # (still branch-free)
    _same(_merge_here(ordered, a, b), np.where(ordered, a, b))     # sampled: np.where again
    assert len(samples) == 3 and not next(iter(merge._places.values())).mixed
    # another place decides for itself; a small batch or other operands take no sample
    _same(merge.blend(mixed, a, b), np.where(mixed, a, b))
    _same(merge.blend(mixed[:100], a[:100], b[:100]), np.where(mixed[:100], a[:100], b[:100]))
    _same(merge.blend(mixed, a, b[:1]), np.where(mixed, a, b[:1]))
    assert len(samples) == 4 and len(merge._places) == 2


@pytest.mark.parametrize("order", [("sorted", "random", "sorted", "all", "none", "random"),
                                   ("random", "sorted", "none", "random", "all")])
def test_vectorized_merges_with_masks_changing_between_calls(order):
    """One specialization, its places' choices made on the first masks, called with masks of
    other orders: numpy.vectorize's values every time (whichever form each place runs)."""
    rng = np.random.default_rng(11)
    f, g = vectorize(seed, fallback="error"), vectorize(pieces, fallback="error")
    for kind in order:
        t = np.where(_mask(rng, BIG, kind), 7.0, 1.0) + rng.random(BIG)
        t[:5] = [-0.0, np.nan, np.inf, -np.inf, 5.0]
        with np.errstate(all="ignore"):
            _same(f(t, 1.0), np.vectorize(seed)(t, 1.0))
            _same(g(t - 6.5), np.vectorize(pieces)(t - 6.5))
