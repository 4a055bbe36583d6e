"""Per-example containers of per-example size, and local dicts.

- Lists appended to a bounded number of times (`passes.appended_lists`): a padded array per
  example and its length; ``len``, ``sum``, ``min``, ``max``, items, iteration respect it.
- Per-branch lookup tables of different lengths, global tables, and a module dict looked up
  at a per-example key (`passes.ragged_tables`).
- Local dicts of literal keys, in the function and in its helpers (`passes.local_dicts`), and
  ``.get`` of a dict a helper returns.

Every function is checked against numpy.vectorize itself (`vectorize`: values and dtype, or
the same exception type) with hypothesis inputs and at N = 0, 1, 5 and a large repeated call,
and against the per-example loop (`vmap`); what stays out is refused where it is written.
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest
from batch_sizes import check_sizes
from differential import assert_values_equal, outcome
from hypothesis import given, settings
from hypothesis import strategies as st
from test_local_lists import _inputs, _same_as_numpy_vectorize, floats

from vectorize import VectorizeError, vectorize, vmap


def _k(y, n):
    """A per-example int in [-n, n] from a float (0 where it is not finite)."""
    k = int(y) % (2 * n + 1) if math.isfinite(y) and abs(y) < 1e9 else 0
    return k - (2 * n + 1) if k > n else k


# ------------------------------------------------------------------ appended lists


def appended_in_a_shared_loop(x, y):
    out = []
    for i in range(4):
        out.append(x * i + y)
    return sum(out) + out[-1] + len(out)


def appended_under_a_condition(x, y):
    out = []
    for i in range(5):
        v = x - i
        if v > 0:
            out.append(v)
    return sum(out) + len(out)          # an int 0 where nothing was appended


def max_of_a_list_that_may_be_empty(x, y):
    out = []
    for i in range(3):
        if x > i:
            out.append(y * i - x)
    return max(out) - min(out)          # ValueError on an example that appends nothing


def started_with_an_item(x, y):
    out = [y]
    for i in range(3):
        if x > i:
            out += [x * i, -y]
    return out[-1] + out[0] + max(out)


def iterated_with_a_break(x, y):
    out = []
    for i in range(4):
        if x > i or y < -i:
            out.append(x + i * y)
    t = 0.0
    for v in out:
        if v > 10:
            break
        t = t * 0.5 + v
    return t


def extended_then_indexed(x, y):
    out = []
    out.extend([x, y])
    if x > 0:
        out.extend([x * 2, y * 2])
    k = _k(y, 5)
    return sum(out) / len(out) + out[k]     # IndexError where k is out of range


def counts_of_ints(x, y):
    hits = []
    for i in range(6):
        if x > i - 3:
            hits.append(i)
    return sum(hits) * 2 + len(hits)


def nested_loops(x, y):
    pts = []
    for i in range(3):
        for j in (1.0, 2.0):
            if x * i > y * j:
                pts.append(x * i - y * j)
    if len(pts) == 0:
        return -1.0
    return sum(pts) / len(pts) + pts[0] - pts[-1]


def appended_in_a_helper_call_result(x, y):
    out = []
    for i in range(3):
        out.append(math.hypot(x, i) if math.isfinite(x) else 0.0)
    return min(out)


def a_sum_feeds_a_second_list(x, y):
    a = []
    for i in range(3):
        if x > i:
            a.append(y * i)
    b = [sum(a)]                        # (computed before the statement that creates `b`)
    for i in range(2):
        if y > i:
            b.append(x)
    b.append(len(a) * 1.0)
    return sum(b)


APPENDS = [a_sum_feeds_a_second_list, appended_in_a_shared_loop, appended_under_a_condition,
           max_of_a_list_that_may_be_empty, started_with_an_item, iterated_with_a_break,
           extended_then_indexed, counts_of_ints, nested_loops,
           appended_in_a_helper_call_result]

# ------------------------------------------------------------------ ragged tables

REGION1 = (0.14632971213167, -0.84548187169114, -0.37563603672040e1, 0.33855169168385e1,
           -0.95791963387872)
REGION2 = (-0.96927686500217e1, 0.10086655968018e2, -0.56087911283020e-2)
EXPONENTS = {1: (0, 1, 2), 2: (1, 2, 3), 3: (2, 3, 5)}
SCALES = {0: 1.5, 1: -2.0, 2: 0.25, 3: 4.0, -1: 0.5}


def per_branch_coefficients(x, y):
    if x < 1:
        c = (1.0, 2.0)
    else:
        c = (3.0, 4.0, 5.0)
    s = 0.0
    for ci in c:
        s = s * y + ci
    return s + len(c) + c[-1] + c[1]


def region_polynomial(x, y):
    """The steam-table shape: the coefficients of the region the example is in."""
    if x < 0:
        n = REGION1
    else:
        n = REGION2
    tau = 1.0 + abs(y) * 0.01
    g = 0.0
    for i in range(len(n)):
        g += n[i] * tau ** i
    return g


I1 = (0, 0, 1, 2, 3)
J1 = (-2, 1, 0, -1, 2)
N1 = (0.14632971213167, -0.84548187169114, -3.756360367204, 3.3855169168385, -0.95791963387872)
I2 = (1, 1, 2)
J2 = (0, 1, 2)
N2 = (-0.0017731742473213, -0.017834862292358, -0.045996013696365)


def steam_region_gibbs(x, y):
    """Exponent and coefficient tables of the region, unpacked together."""
    if x < 1.0:
        ii, jj, n = I1, J1, N1
    else:
        ii, jj, n = I2, J2, N2
    pi = 7.1 - abs(x) * 0.1 if math.isfinite(x) else 7.0
    tau = 1.222 + abs(y) * 0.5 + 0.25 if math.isfinite(y) else 2.0
    g = 0.0
    for k in range(len(n)):
        g += n[k] * pi ** ii[k] * (tau - 1.222) ** jj[k]
    return g


def table_at_a_per_example_index(x, y):
    if x < 1:
        c = [1.5, 2.5]
    elif x < 3:
        c = [3.0, 4.0, 5.0, 6.0]
    else:
        c = [-1.0, -2.0]
    k = _k(y, 4)
    return c[k]                         # IndexError where out of this example's table


def module_dict_of_tuples(x, y):
    k = 1 if x < 0 else (2 if x < 1 else 3)
    a, b, c = EXPONENTS[k]
    return y ** a + y * b - c


def module_dict_at_a_key_that_may_be_missing(x, y):
    k = _k(y, 4)
    return SCALES[k] * x               # KeyError for k < -1 or k == 4


RAGGED = [per_branch_coefficients, region_polynomial, steam_region_gibbs,
          table_at_a_per_example_index,
          module_dict_of_tuples, module_dict_at_a_key_that_may_be_missing]

# ------------------------------------------------------------------ local dicts


def _terms(a, b):
    d = {}
    d["a"] = a * 2
    d["b"] = b + 1
    if a > b:
        d["a"] += b
    return d["a"] + d["b"]


def dict_written_in_a_helper(x, y):
    return _terms(x, y) - _terms(y, x)


def dict_display_and_get(x, y):
    d = {"a": x, "b": y * 2, 3: x - y}
    return d["a"] - d["b"] + d.get("c", 1.0) + d.get("a", 0.0) * d[3] + ("b" in d)


def _state(x, y):
    st = {}
    st["s"] = x + y
    st["p"] = x * y
    return st


def dict_returned_by_a_helper(x, y):
    r = _state(x, y)
    return r["s"] / (1.0 + abs(r["p"])) + r.get("q", 0.5)


def dict_written_under_conditions(x, y):
    d = {"lo": 0.0, "hi": 0.0}
    for i in range(3):
        if x > i:
            d["hi"] += y
        else:
            d["lo"] -= y
    return d["hi"] - d["lo"]


DICTS = [dict_written_in_a_helper, dict_display_and_get, dict_returned_by_a_helper,
         dict_written_under_conditions]

CORPUS = APPENDS + RAGGED + DICTS

# ------------------------------------------------------------------ the checks


@pytest.mark.parametrize("f", CORPUS, ids=lambda f: f.__name__)
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_vectorize_matches_numpy_vectorize(f, data):
    for n in (1, 5):
        x = np.array(data.draw(st.lists(floats, min_size=n, max_size=n)))
        y = np.array(data.draw(st.lists(floats, min_size=n, max_size=n)))
        _same_as_numpy_vectorize(f, x, y)


def _safe_inputs(n, seed=0):
    """Inputs on which no example raises (x > 0.5, y in (-2, 2)): the batch's values."""
    rng = np.random.default_rng(seed + n)
    return np.round(rng.uniform(0.6, 6, n), 1), np.round(rng.uniform(-1.9, 1.9, n), 1)


@pytest.mark.parametrize("f", CORPUS, ids=lambda f: f.__name__)
def test_vectorize_at_every_batch_size(f):
    """N = 0, 1, 5 and twice at N = 10,000, against numpy.vectorize (values and dtype, or the
    same exception type), on inputs where some examples raise and on inputs where none do."""
    g = vectorize(f, fallback="error")
    assert g(np.zeros(0), np.zeros(0)).shape == (0,)
    for n in (1, 5, 10_000, 10_000):
        _same_as_numpy_vectorize(f, *_inputs(n))
    for n in (5, 10_000):
        _same_as_numpy_vectorize(f, *_safe_inputs(n))


@pytest.mark.parametrize("f", CORPUS, ids=lambda f: f.__name__)
def test_vmap_matches_the_loop(f):
    """`vmap`: the loop over NumPy scalars at N = 0, 1, 5 and a large repeated call."""
    check_sizes(vmap(f, fallback="error"), f, _inputs, sizes=(0, 1, 5), large=10_000,
                repeats=2)
    check_sizes(vmap(f, fallback="error"), f, _safe_inputs, sizes=(1, 5), large=10_000,
                repeats=1)


def test_the_safe_inputs_return_values():
    """(The batch-size checks above compare values, not only exception types.)"""
    for f in CORPUS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = np.vectorize(f)(*_safe_inputs(50))
        assert out.shape == (50,), f.__name__


# ------------------------------------------------------------------ what Python raises


def test_max_of_an_empty_list_raises_value_error():
    g = vectorize(max_of_a_list_that_may_be_empty, fallback="error")
    with pytest.raises(ValueError, match="empty"):
        g(np.array([2.0, -1.0]), np.array([1.0, 1.0]))
    np.testing.assert_array_equal(g(np.array([2.5, 0.5]), np.array([1.0, 1.0])),
                                  np.vectorize(max_of_a_list_that_may_be_empty)(
                                      np.array([2.5, 0.5]), np.array([1.0, 1.0])))


def test_an_empty_sum_is_the_int_zero_of_numpy_vectorize():
    # the first example appends nothing: numpy.vectorize's result is of ints
    x, y = np.array([-3.0, 2.5]), np.array([0.0, 0.0])
    got = vectorize(appended_under_a_condition, fallback="error")(x, y)
    expected = np.vectorize(appended_under_a_condition)(x, y)
    assert got.dtype == expected.dtype == np.dtype(int)
    np.testing.assert_array_equal(got, expected)


def test_an_index_past_an_examples_table_raises_index_error():
    g = vectorize(table_at_a_per_example_index, fallback="error")
    x = np.array([0.0, 2.0])            # tables of 2 and of 4 items
    with pytest.raises(IndexError):
        g(x, np.array([2.0, 0.0]))      # k = 2 on the table of 2
    with pytest.raises(IndexError):
        g(x, np.array([-3.0, 0.0]))     # k = -3 on the table of 2
    y = np.array([-2.0, 3.0])           # k = -2 and 3: in range
    np.testing.assert_array_equal(g(x, y), [1.5, 6.0])
    np.testing.assert_array_equal(g(x, y), np.vectorize(table_at_a_per_example_index)(x, y))


def test_a_missing_key_raises_key_error():
    g = vectorize(module_dict_at_a_key_that_may_be_missing, fallback="error")
    with pytest.raises(KeyError):
        g(np.array([1.0, 1.0]), np.array([0.0, -2.0]))     # k = 0, then k = -2
    np.testing.assert_array_equal(g(np.array([1.0, 2.0]), np.array([0.0, 1.0])),
                                  [1.5, -4.0])


# ------------------------------------------------------------------ the generated code


def test_generated_code_reads_like_numpy():
    x, y = _inputs(5)
    src = vectorize(appended_under_a_condition).source(x, y)
    assert "out = np.repeat(np.array([0.0, 0.0, 0.0, 0.0, 0.0])[None], len(x), axis=0)" in src
    assert "for i in range(5):" in src and "__list_array__" not in src, src
    src = vectorize(per_branch_coefficients).source(x, y)
    assert "np.array([1.0, 2.0, 2.0]), np.array([3.0, 4.0, 5.0])" in src, src
    assert "c_len = np.where(" in src, src
    src = vectorize(dict_written_under_conditions).source(x, y)
    assert "d_hi" in src and "d_lo" in src and "{" not in src.split("def ")[1], src
    src = vectorize(module_dict_of_tuples).source(x, y)
    assert "EXPONENTS[1]" in src and "EXPONENTS[3]" in src, src


# ------------------------------------------------------------------ refused, located


def returned_list(x, y):
    out = []
    for i in range(3):
        if x > i:
            out.append(y)
    return out


def appended_in_a_while_loop(x, y):
    out = []
    while x > 0:
        out.append(x)
        x -= 1.0
    return len(out)


def appended_per_example_times(x, y):
    out = []
    for i in range(int(x) if 0 < x < 100 else 0):
        out.append(y * i)
    return sum(out)


def key_written_on_some_paths(x, y):
    d = {"a": x}
    if x > 0:
        d["b"] = y
    return d["a"] + d["b"]


def ragged_table_unpacked(x, y):
    if x < 1:
        c = (1.0, 2.0)
    else:
        c = (3.0, 4.0, 5.0)
    a, b = c
    return a + b


REFUSED = [
    (returned_list, "appends to is its result", "return out"),
    (appended_in_a_while_loop, "no bound", "out.append(x)"),
    (appended_per_example_times, "no bound", "out.append(y * i)"),
    (key_written_on_some_paths, "the dict `d`", 'd["b"] = y'),
    (ragged_table_unpacked, "different lengths", "if x < 1:"),
]


@pytest.mark.parametrize("f, reason, where", REFUSED, ids=lambda v: getattr(v, "__name__", ""))
def test_refused_where_it_is_written(f, reason, where):
    x, y = _inputs(5)
    for wrap in (lambda g: vectorize(g, fallback="error"), lambda g: vmap(g, fallback="error")):
        with pytest.raises(VectorizeError, match=re.escape(reason)) as info:
            wrap(f)(x, y)
        text = str(info.value)
        assert "test_local_lists_ragged.py:" in text and where in text, text
    # and the fallback gives numpy.vectorize's own outcome
    expected, raised = outcome(lambda: np.vectorize(f)(x, y))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, got_raised = outcome(lambda: vectorize(f, fallback="warn")(x, y))
    assert type(got_raised) is type(raised)
    if raised is None:
        assert_values_equal(got, expected)


# ------------------------------------------------------------------ bugs found on the way


def appended_shared_value_and_passed_on(x):
    seen = []
    if x > 0:
        seen.append(1.0)
    return len(list(seen))


def test_a_shared_value_appended_under_a_condition_is_refused_not_appended_for_all():
    """Was silently wrong: ``seen.append(1.0)`` (no per-example argument) under a per-example
    condition, into a list the passes leave as it is, ran for every example on the batch
    (``[1, 1, 1]`` where numpy.vectorize gives ``[0, 0, 1]``); now refused where it is
    written, and the fallback gives numpy.vectorize's result."""
    x = np.array([-5.0, 0.0, 5.0])
    with pytest.raises(VectorizeError, match=r"test_local_lists_ragged\.py:\d+:\d+: calling "
                                             r"`\.append\(\)` on `seen`"):
        vectorize(appended_shared_value_and_passed_on, fallback="error")(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = vectorize(appended_shared_value_and_passed_on)(x)
    np.testing.assert_array_equal(got, [0, 0, 1])


def test_torch_refuses_appends_with_a_location_and_computes_dicts():
    torch = pytest.importorskip("torch")
    x, y = _safe_inputs(6)
    tx, ty = torch.tensor(x), torch.tensor(y)
    # (was silently wrong under PyTorch, whose namespace has no list arrays: every example
    # counted every range counter appended under its condition)
    with pytest.raises(VectorizeError, match=r"test_local_lists_ragged\.py:\d+:\d+: calling "
                                             r"`\.append\(\)` on `hits`"):
        vmap(counts_of_ints, fallback="error")(tx, ty)
    with pytest.raises(VectorizeError, match=r"test_local_lists_ragged\.py:\d+:\d+: `c` holds "
                                             "tuples of different lengths"):
        vmap(per_branch_coefficients, fallback="error")(tx, ty)
    for f in DICTS + [module_dict_of_tuples]:
        got = vmap(f, fallback="error")(tx, ty).numpy()
        np.testing.assert_array_equal(got, vmap(f, fallback="error")(x, y))


def test_jax_computes_what_numpy_does():
    pytest.importorskip("jax")
    x, y = _safe_inputs(6)
    # (one of each kind: JAX compiles each function, which takes seconds)
    for f in [appended_under_a_condition, region_polynomial, dict_written_under_conditions]:
        got = vmap(f, backend="jax", fallback="error")(x, y)
        np.testing.assert_allclose(np.asarray(got), vmap(f, fallback="error")(x, y),
                                   rtol=1e-13, err_msg=f.__name__)
