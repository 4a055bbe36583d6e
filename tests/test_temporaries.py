"""`passes/temporaries.py`: chains of arithmetic computed in the array their first operation
made (``y = 2 * x``, ``y += 1``).

Two tables, as for every pass: what it rewrites (the generated source, read as code) and what
it must leave alone (each with its reason); then the differential test: every function runs in
its optimized form and in the simple one (the same specialization with the pass off) on the
same inputs, from hypothesis (NaN, +-inf, +-0, negatives, empty batches; the same array passed
as two arguments), and both must give identical results (dtype, shape, bits, signs of zero),
equal to `numpy.vectorize`'s, without writing into any argument.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from differential import assert_values_equal
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import vectorize.passes.temporaries as temporaries
from vectorize import vectorize, vmap

SETTINGS = settings(max_examples=20, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


# ------------------------------------------------------------------ the functions under test
def affine(x, y):
    a = 2 * x + 1 - y * 3
    return a


def scaled_square(x, y):
    b = x * x / 2.0 + y
    return b


def root_term(x, y):
    c = np.sqrt(abs(x)) + y - 1.5
    return c


def quadratic(a, b):
    disc = b * b - 4 * a * 0.5
    if disc < 0:
        root = math.nan
    else:
        root = (-b + math.sqrt(disc)) / (2.0 + a * a)
    return root


def negated(x, y):
    d = -x * y + x
    return d


def int_chain(n, m):
    k = n * 3 + m - 7
    return k


def to_float(n, m):
    z = n * 2 + 0.5          # int * 2 is int; + 0.5 makes a float: not in place
    return z + m


def reads_target(x, y):
    y = x * 2 + y            # the operand reads the name being assigned
    return y


def user_array(x, y):
    e = x + 1                # `x` is the user's array: never written into
    return e + y


def in_loop(x, y):
    s = x * 0.0
    for k in range(3):
        s = s * 0.5 + y - k
    return s


def vector_offset(x, w):
    return x * 2 + w         # per-example vectors: not in place (kept as it is)


def floor_at(x, y):
    # a ufunc of a fresh array: computed in it (``out=``)
    m = max(x * y, 0.5)
    return m


def decay(x, y):
    # returned: the fresh array gets a name
    return math.tanh(-x * y)


def angle(x, y):
    y = math.atan2(x * 2, y)     # the other operand is the name being assigned
    return y


def both_fresh(x, y):
    r = math.atan2(x * 2, y * 3)     # the other operand is not a name or a number
    return r


def relu_dot(x, w):
    return max(x.dot(w), 0.0)


FLOAT_FUNCS = [affine, scaled_square, root_term, quadratic, negated, reads_target, user_array,
               in_loop, floor_at, decay, angle, both_fresh]


# --------------------------------------------------------------------------- the two forms
_FORMS: dict = {}


def forms(func):
    """``(optimized, simple)``: ``vectorize(func)`` twice, made once per function (each
    specialization is built on its first call); call ``simple`` under `pass_off`."""
    if func not in _FORMS:
        _FORMS[func] = (vectorize(func, fallback="error"), vectorize(func, fallback="error"))
    return _FORMS[func]


def pass_off(monkeypatch):
    """The pipeline without the pass, for what is built while it holds."""
    monkeypatch.setattr(temporaries, "transform", lambda tree, ctx: tree)


@pytest.fixture(autouse=True)
def _no_disk_cache(monkeypatch):
    monkeypatch.delenv("VECTORIZE_CACHE_DIR", raising=False)


def source(func, *args):
    return vectorize(func, fallback="error").source(*args).split("\n\n\n", 1)[1]


X = np.linspace(-2.0, 3.0, 6)
N = np.arange(6)


# ------------------------------------------------------------------------ what it rewrites
@pytest.mark.parametrize("func, args, expected", [
    (affine, (X, X), """\
def affine(x, y):
    a = 2.0 * x
    a += 1.0
    a -= y * 3.0
    return a
"""),
    (scaled_square, (X, X), """\
def scaled_square(x, y):
    b = x * x
    b /= 2.0
    b += y
    return b
"""),
    (root_term, (X, 1.0), """\
def root_term(x, y):
    c = np.sqrt(abs(x))
    c += y
    c -= 1.5
    return c
"""),
    (negated, (X, X), """\
def negated(x, y):
    d = -x
    d *= y
    d += x
    return d
"""),
    (int_chain, (N, N), """\
        raise OverflowError("Python int too large to convert to C long")
    k = shared - 7
    return k
"""),
    (floor_at, (X, X), """\
def floor_at(x, y):
    # a ufunc of a fresh array: computed in it (``out=``)
    m = x * y
    merge.maximum(0.5, m, out=m)
    return m
"""),
    (decay, (X, X), """\
    result = -x * y
    np.tanh(result, out=result)
    return result
"""),
])
def test_rewrites(func, args, expected):
    assert source(func, *args).endswith(expected)


def test_vmap_contraction_into_its_result():
    """``max(x.dot(w), 0.0)`` per row: the maximum is taken in the matrix product's array."""
    text = vmap(relu_dot, in_axes=(0, None)).source(np.ones((4, 3)), np.ones(3))
    assert text.endswith("""\
def relu_dot(x, w):
    result = merge.rows_dot(x, w)
    merge.maximum(0.0, result, out=result)
    return result
""")


@pytest.mark.parametrize("n", [0, 1, 7])
def test_vmap_contraction_same_as_simple_form(monkeypatch, n):
    rng = np.random.default_rng(n)
    x, w = rng.normal(size=(n, 5)), rng.normal(size=5)
    x[:, 0] = [(math.nan, -0.0, math.inf)[k % 3] for k in range(n)]
    got = vmap(relu_dot, in_axes=(0, None))(x, w)
    want = np.array([relu_dot(row, w) for row in x]).reshape(n)
    pass_off(monkeypatch)
    plain = vmap(relu_dot, in_axes=(0, None))(x, w)
    for other in (want, plain):
        assert got.dtype == other.dtype and got.tobytes() == np.asarray(other).tobytes()


# --------------------------------------------------------------------- what it leaves alone
@pytest.mark.parametrize("func, args, line, reason", [
    (to_float, (N, 1.0), "z = n * 2 + 0.5", "the last step changes the dtype (int to float)"),
    (reads_target, (X, X), "y = x * 2.0 + y", "the operand reads the name being assigned"),
    (user_array, (X, X), "e = x + 1", "`x` is the user's array"),
    (vector_offset, (np.ones((4, 3)), np.ones(3)), None, "per-example vectors"),
    (angle, (X, X), "y = np.arctan2(x * 2.0, y)", "the other operand reads the name"),
    (both_fresh, (X, X), "r = np.arctan2(x * 2.0, y * 3.0)", "the other operand is computed"),
])
def test_unchanged(func, args, line, reason):
    text = source(func, *args)
    if line is not None:
        assert line in text, reason
    assert "+=" not in text and "-=" not in text and "*=" not in text and "/=" not in text, \
        reason
    assert "out=" not in text, reason


def test_vmap_rank_one_unchanged():
    text = vmap(vector_offset, in_axes=(0, None)).source(np.ones((4, 3)), np.ones(3))
    assert "+=" not in text


def test_torch_unchanged():
    torch = pytest.importorskip("torch")
    text = vmap(affine).source(torch.linspace(0, 1, 4), torch.linspace(0, 1, 4))
    assert "a += 1" not in text and "a = 2 * x + 1 - y * 3" in text


# ------------------------------------------------------------------------ the differential
edge_floats = st.one_of(st.floats(-1e6, 1e6), st.sampled_from(
    [0.0, -0.0, math.nan, math.inf, -math.inf, 1e308, -1e-308]))


def _check(func, args):
    before = [np.array(a, copy=True) for a in args]
    optimized, simple = forms(func)
    got = optimized(*args)
    for arg, kept in zip(args, before):     # no argument was written into
        assert np.array_equal(arg, kept, equal_nan=True)
    with pytest.MonkeyPatch.context() as monkeypatch:
        pass_off(monkeypatch)
        plain = simple(*args)
    assert plain is not got
    got, plain = np.asarray(got), np.asarray(plain)
    assert got.dtype == plain.dtype and got.shape == plain.shape
    assert np.array_equal(got, plain, equal_nan=True)
    # signed zeros agree; a NaN's sign bit is not a value (IEEE 754 leaves it to the
    # operation's implementation, NumPy's SIMD loops and scalar code differ)
    numbers = ~np.isnan(got)
    assert np.array_equal(np.signbit(got[numbers]), np.signbit(plain[numbers]))
    if len(args[0]):        # (numpy.vectorize refuses empty inputs without otypes)
        with np.errstate(all="ignore"):
            reference = np.vectorize(func)(*args)
        assert_values_equal(got, reference, func.__name__)


def test_forms_differ(monkeypatch):
    """The two forms compared are not the same code (else the differential cannot fail)."""
    optimized, simple = forms(affine)
    assert "a += 1" in optimized.source(X, X)
    pass_off(monkeypatch)
    assert "a += 1" not in simple.source(X, X)


@pytest.mark.parametrize("func", FLOAT_FUNCS, ids=lambda f: f.__name__)
@SETTINGS
@given(xs=st.lists(st.tuples(edge_floats, edge_floats), max_size=12), same=st.booleans())
def test_same_as_simple_form(func, xs, same):
    x = np.array([a for a, _ in xs], dtype=np.float64)
    y = x if same else np.array([b for _, b in xs], dtype=np.float64)
    with np.errstate(all="ignore"):
        _check(func, (x, y))


@SETTINGS
@given(ns=st.lists(st.tuples(st.integers(-10**6, 10**6), st.integers(-10**6, 10**6)),
                   max_size=12), same=st.booleans())
def test_ints_same_as_simple_form(ns, same):
    n = np.array([a for a, _ in ns], dtype=np.int64)
    m = n if same else np.array([b for _, b in ns], dtype=np.int64)
    _check(int_chain, (n, m))
    _check(to_float, (n, m.astype(np.float64)))


@pytest.mark.parametrize("n", [0, 1, 5, 10_000])
def test_sizes(n):
    x = np.random.default_rng(n).normal(size=n) * 3
    for func in FLOAT_FUNCS:
        for _ in range(3):          # a repeated call (chunks and the tuner's choices)
            with np.errstate(all="ignore"):
                _check(func, (x, x[::-1].copy()))
