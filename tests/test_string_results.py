"""Strings made from per-example numbers (`vectorize/rules/strings.py`): an f-string, `%`,
`str.format`, `str()`, `format()` and `+` of such strings are formatted lane by lane, the
rest of the function stays vectorized, and the result is numpy.vectorize's: the same items
and the same `<U` width (its longest item), at every batch size."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vectorize import VectorizeError, vectorize


def month_label(m):
    return f"M{m:02d}"


def sign_label(x):
    if x > 0:
        return "pos%d" % x      # noqa: UP031 -- the construct under test
    return "neg"


def as_text(x):
    return str(x)


def two_numbers(x, n):
    return "{:.3f}|{}".format(x * 2, n)      # noqa: UP032 -- the construct under test


def root_digits(x):
    return format(math.sqrt(abs(x)), ".4g")


def percent_tuple(x, n):
    return "%5.2f-%d" % (x, n)      # noqa: UP031 -- the construct under test


def exclaimed(x):
    s = f"{x:.1f}"
    return s + "!"


def nested_width(x, n):
    return f"{x:{n}.2f}"


def flag_text(b):
    return f"{b}"


def chosen_label(x):
    label = "big" if x > 10 else f"small{x:.0f}"
    return label


def three_ways(x, n):
    if n > 2:
        return f"{x:.2e}"
    elif n > 0:
        return "n%d" % n      # noqa: UP031 -- the construct under test
    return str(n > -1)


def keyword_format(x, n):
    return "{v:+.1f} after {k} steps".format(v=x, k=n)  # noqa: UP032 -- under test


def int_format_of_a_float(x):
    return f"{x:d}"        # ValueError per example (float): the replay raises it


def label_of_a_loop(x):
    total = 0.0
    for k in range(3):
        total += x * k
    return f"total={total:.2f}"


FLOAT = [sign_label, as_text, root_digits, exclaimed, chosen_label, int_format_of_a_float,
         label_of_a_loop]
FLOAT_INT = [two_numbers, percent_tuple, three_ways, keyword_format]


def _inputs(n, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(0, 20, n)
    x[: min(n, 6)] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.5][: min(n, 6)]
    return x, rng.integers(-3, 6, n)


def _same_as_numpy(f, *args, **options):
    try:
        want = np.vectorize(f, **options)(*args)
    except Exception as exc:        # noqa: BLE001 -- the loop's exception is the reference
        with pytest.raises(type(exc)):
            vectorize(f, fallback="error", **options)(*args)
        return
    got = vectorize(f, fallback="error", **options)(*args)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tolist() == want.tolist()


@pytest.mark.parametrize("n", [1, 5, 10_000])
@pytest.mark.parametrize("f", FLOAT + FLOAT_INT + [month_label, nested_width, flag_text],
                         ids=lambda f: f.__name__)
def test_strings_equal_numpy_vectorize(f, n):
    x, k = _inputs(n)
    if f in FLOAT:
        args = (x,)
    elif f in FLOAT_INT:
        args = (x, k)
    elif f is month_label:
        args = (k * 7,)
    elif f is nested_width:
        args = (x, np.abs(k))
    else:
        args = (k > 0,)
    for _ in range(2):      # the second call reuses the specialization
        _same_as_numpy(f, *args)


def test_the_string_piece_runs_per_lane_and_the_rest_stays_vectorized():
    source = vectorize(label_of_a_loop, fallback="error").source(np.ones(3))
    assert 'np.array([f"total={total_i:.2f}" for total_i in total.tolist()], dtype=str)' in \
        source
    assert "for k in range(3)" in source      # the loop over k is the user's, not over lanes


def test_an_empty_batch_gives_an_empty_string_array():
    out = vectorize(month_label)(np.array([], dtype=np.int64))
    assert out.shape == (0,) and out.dtype.kind == "U"


def test_a_string_otype_keeps_its_kind_only_as_numpy_does():
    # numpy.vectorize reads otypes=["U2"] as "U": nothing is cut to two characters
    m = np.array([5, 123])
    want = np.vectorize(month_label, otypes=["U2"])(m)
    got = vectorize(month_label, otypes=["U2"])(m)
    assert got.dtype == want.dtype and got.tolist() == want.tolist() == ["M05", "M123"]


def test_a_scalar_call_gives_a_0d_string_array():
    assert repr(vectorize(month_label)(7)) == repr(np.vectorize(month_label)(7))


@pytest.mark.parametrize("source, what", [
    ("def f(x):\n    return f'{x!r}'\n", "!r"),
    ("def f(x):\n    return f'{x=}'\n", "expression's text"),
    ("def f(x):\n    return '%r' % x\n", "%r"),
    ("def f(x):\n    return f'{np.float32(x)}'\n", "float32"),
])
def test_what_could_print_other_digits_is_refused_with_its_location(tmp_path, source, what):
    path = tmp_path / "mod.py"
    path.write_text("import numpy as np\n" + source)
    namespace = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    with pytest.raises(VectorizeError, match=r"mod\.py:3:\d+") as info:
        vectorize(namespace["f"], fallback="error")(np.array([1.5, 2.0]))
    assert what in str(info.value)
    # with fallbacks allowed, the loop gives numpy.vectorize's answer
    with pytest.warns(Warning):
        got = vectorize(namespace["f"])(np.array([1.5, 2.0]))
    assert got.tolist() == np.vectorize(namespace["f"])(np.array([1.5, 2.0])).tolist()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=64), max_size=8),
       st.integers(0, 3))
def test_formatted_floats_hypothesis(values, which):
    f = [as_text, root_digits, exclaimed, chosen_label][which]
    x = np.array(values, dtype=np.float64)
    if not x.size:
        assert vectorize(f)(x).shape == (0,)
        return
    _same_as_numpy(f, x)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(-2**62, 2**62), min_size=1, max_size=8))
def test_formatted_ints_hypothesis(values):
    _same_as_numpy(month_label, np.array(values, dtype=np.int64))
    _same_as_numpy(sign_label, np.array(values, dtype=np.int64))
