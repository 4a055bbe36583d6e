"""Silently wrong results found by the wrong28 hunt, each against its reference
(numpy.vectorize for `vectorize`, the per-example loop for `vmap`, the original file for the
file rewriter)."""

import warnings

import numpy as np
import pytest

from vectorize import VectorizeError, vectorize, vmap


def _loop(f, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return np.stack([f(*row) for row in zip(*args)])


# -- a condition the same for every example chooses the dtype a loop carries -------------

def _int_or_float_then_loop(a, c):
    if c > 0:
        t = 1
    else:
        t = 0.5
    while t < a:
        t = t * 2
    return t


@pytest.mark.parametrize("c", [1.0, -1.0])
def test_a_shared_choice_between_an_int_and_a_float_before_a_loop(c):
    a = np.array([3.0, 7.0, 0.2])
    got = vectorize(_int_or_float_then_loop)(a, c)
    expected = np.vectorize(_int_or_float_then_loop)(a, c)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def _elif_chain_then_loop(a, c):
    if c > 1:
        t = np.float32(a)
    elif c > 0:
        t = a * 1.0
    else:
        return a
    n = 0
    while t < 5 and n < 6:
        n = n + 1
        t = t * 2 + 1.1
    return t


@pytest.mark.parametrize("c", [2.0, 0.5, -1.0])
def test_a_shared_elif_chain_choosing_float32_or_float64_before_a_masked_loop(c):
    a = np.array([-1.3, 2.7, 0.2, 9.0])
    got = vmap(_elif_chain_then_loop, in_axes=(0, None))(a, c)
    expected = _loop(lambda x: _elif_chain_then_loop(x, c), a)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def _chosen_by_a_conditional_expression(a, b, c):
    t = np.linalg.norm(b) if c > 0 else -a
    n = 0
    while t < 5 and n < 6:
        n = n + 1
        t = t * 2 + 1.1
    return t


def _int_or_float_by_a_conditional_expression(a, c):
    t = 1 if c > 0 else 0.5
    while t < a:
        t = t * 2
    return t


@pytest.mark.parametrize("c", [2.0, -2.0])
def test_a_shared_conditional_expression_choosing_the_dtype_before_a_loop(c):
    a = np.array([-1.3, 2.7, 0.2], dtype=np.float32)
    b = np.ones((3, 4), dtype=np.int32)
    got = vmap(_chosen_by_a_conditional_expression, in_axes=(0, 0, None))(a, b, c)
    expected = _loop(lambda x, y: _chosen_by_a_conditional_expression(x, y, c), a, b)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)
    x = np.array([3.0, 7.0, 0.2])
    got = vectorize(_int_or_float_by_a_conditional_expression)(x, c)
    expected = np.vectorize(_int_or_float_by_a_conditional_expression)(x, c)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


# -- the file rewriter's short form: a batched parameter that does not reach the result ---

_UNREAD_PARAMETER = '''
import numpy as np
from vectorize import vectorize

LIMIT = 2.0


@vectorize
def f(x, b):
    y = b
    y = x * 2.0
    return y - LIMIT


@vectorize
def g(x, b):
    k = 0
    while k < 3:
        k += 1
    return x + k


def case_scalar_and_grid():
    return f(0.5, np.linspace(0.0, 1.0, 5))


def case_grid_and_scalar():
    return f(np.linspace(0.0, 1.0, 5), 0.5)


def case_rows_and_column():
    return g(np.ones(3), np.zeros((4, 1)))


def case_stacked():
    grid = np.linspace(0.5, 0.5, 5)
    return np.stack([f(x, grid) for x in grid])
'''


def test_the_short_form_broadcasts_a_parameter_the_result_does_not_read(tmp_path):
    from test_clihunt27 import assert_same_cases
    assert_same_cases(_UNREAD_PARAMETER, tmp_path)


# -- a file written for PyTorch computes with Python numbers as the original does ---------

_PYTHON_NUMBERS = '''
import numpy as np
from vectorize import vectorize

SCALE = -3.0
INTS = [-3, 4]


@vectorize(excluded={"b"})
def f(x, b=SCALE):
    y = (-3.0 + b) - 1.107 / (b * b + 1.0)
    return y * y / (max(y, b) * max(y, b) + 1.0) + x


@vectorize
def g(x):
    return x * 1.1


def case_sum_over_ints():
    return sum(f(x) for x in INTS)


def case_an_int():
    return g(3)


def case_a_float():
    return g(0.3)


def case_floats():
    return g([0.3, 0.7])
'''


def test_a_file_written_for_torch_computes_python_numbers_in_float64(tmp_path):
    torch = pytest.importorskip("torch")
    from test_clihunt27 import _load

    from vectorize.rewrite import rewrite_text
    result = rewrite_text(_PYTHON_NUMBERS, "case.py", backend="torch")
    assert not result.errors, [str(e) for e in result.errors]
    original, rewritten = tmp_path / "original.py", tmp_path / "rewritten.py"
    original.write_text(_PYTHON_NUMBERS)
    rewritten.write_text(result.text)
    before, after = _load(original), _load(rewritten)
    for name in [n for n in vars(before) if n.startswith("case_")]:
        want, got = np.asarray(getattr(before, name)()), getattr(after, name)()
        assert torch.as_tensor(got).dtype == torch.float64, name
        np.testing.assert_array_equal(torch.as_tensor(got).numpy(), want, err_msg=name)


# -- a per-example choice between a string and a number in a conditional expression -------

def _string_or_int(x, s):
    return s if x > 1 else x


def _int_or_string(x, s):
    return x if x > 1 else s


@pytest.mark.parametrize("f, xs", [(_string_or_int, [1, 2, 3]), (_int_or_string, [3, 1]),
                                   (_string_or_int, [0, 1])])
@pytest.mark.parametrize("length", [10, 65])
def test_a_conditional_expression_choosing_a_string_or_a_number_per_example(f, xs, length):
    from vectorize import VectorizeError
    s, xs = "a" * length, np.array(xs)
    try:
        expected, expected_exc = np.vectorize(f, excluded={"s"})(xs, s=s), None
    except Exception as exc:  # noqa: BLE001 -- the outcome compared
        expected, expected_exc = None, type(exc)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if expected_exc is not None:
            with pytest.raises(expected_exc):
                vectorize(f, excluded={"s"})(xs, s=s)
        else:
            got = vectorize(f, excluded={"s"})(xs, s=s)
            assert got.dtype == expected.dtype
            np.testing.assert_array_equal(got, expected)
    with pytest.raises(VectorizeError, match="conditional expression gives"):
        vectorize(f, excluded={"s"}, fallback="error")(xs, s=s)


# -- a string otype of a value whose type differs per example ------------------------------

def _int_or_half(x):
    return x if x > 1 else 0.5


def _smaller(x, n):
    return min(n, x)


def _doubled(x):
    return x * 2


@pytest.mark.parametrize("f, args", [
    (_int_or_half, (np.array([3, 1]),)),
    (_smaller, (np.array([True, False]), 10)),
    (_smaller, (np.array([3, 1]), 2.5)),
    (_doubled, (np.array([3, 1]),)),
])
@pytest.mark.parametrize("otype", ["U", "S"])
def test_a_string_otype_converts_each_example_s_own_type(f, args, otype):
    expected = np.vectorize(f, otypes=[otype])(*args)
    got = vectorize(f, otypes=[otype], fallback="error")(*args)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


# -- the file rewriter: an excluded name passed by position is broadcast by numpy.vectorize -

_EXCLUDED_BY_NAME = '''
import math

import numpy as np
from vectorize import vectorize

SCALE = 2.0
G = np.array([1.0, 4.0])


@vectorize(excluded={"b"})
def f(x, b=SCALE):
    return math.sqrt(abs(SCALE * b)) + x


@vectorize(excluded={1})
def g(x, b=SCALE):
    return math.sqrt(abs(SCALE * b)) + x


def fine():
    return f(np.zeros(3), b=2.0), f(np.zeros(3), SCALE), f(np.zeros(3), 3.0), g(np.zeros(2), 3.0), \
        g(np.zeros(2), b=3.0)

'''


@pytest.mark.parametrize("call, name", [
    ("f(np.array([[0.0], [1.0]]), G)", "f"),
    ("[f(x, G) for x in [0.0, 1.0]]", "f"),
    ("g(np.zeros(2), b=G)", "g"),
])
def test_an_excluded_parameter_passed_the_other_way_is_a_located_error(call, name):
    from vectorize.rewrite import rewrite_text
    source = _EXCLUDED_BY_NAME + f"\ndef bad():\n    return {call}\n"
    namespace: dict = {}
    exec(compile(_EXCLUDED_BY_NAME, "<case>", "exec"), namespace)  # noqa: S102
    f = getattr(namespace[name], "pyfunc", None)
    if f is not None:       # numpy.vectorize broadcasts it there: not `b` as it is
        with pytest.raises(TypeError):
            f(0.0, namespace["G"])
    result = rewrite_text(source, "case.py")
    assert [e.line for e in result.errors] == [len(source.splitlines())], \
        [str(e) for e in result.errors]
    assert "numpy.vectorize honours" in result.errors[0].reason
    assert result.text == source


def test_excluded_parameters_passed_as_excluded_or_as_numbers_are_rewritten(tmp_path):
    from test_clihunt27 import both
    original, rewritten, _text = both(_EXCLUDED_BY_NAME, tmp_path)
    for got, want in zip(rewritten.fine(), original.fine()):
        np.testing.assert_array_equal(got, want)


def test_an_array_passed_to_a_number_parameter_passed_as_it_is_is_a_located_error():
    from vectorize.rewrite import rewrite_text
    source = _EXCLUDED_BY_NAME + "\ndef bad():\n    return [g(x, G) for x in [2.0, 3.0]]\n"
    result = rewrite_text(source, "case.py", backend="torch")
    assert [e.line for e in result.errors] == [len(source.splitlines())], \
        [str(e) for e in result.errors]
    assert "`G` is not a number" in result.errors[0].reason


def _four_choices(x, c):
    t = np.float32(1.5) if c > 0 else 2.5
    u = np.float32(0.5) if c > 1 else 1.5
    v = np.float32(0.25) if c > 2 else 3.5
    w = np.float32(0.125) if c > 3 else 4.5
    k = 0
    while x > t + u + v + w and k < 10:
        x = x - 1
        k += 1
    return x


def _three_choices(x, c):
    t = np.float32(1.5) if c > 0 else 2.5
    u = np.float32(0.5) if c > 1 else 1.5
    v = np.float32(0.25) if c > 2 else 3.5
    k = 0
    while x > t + u + v and k < 10:
        x = x - 1
        k += 1
    return x


def test_dtype_choices_copy_their_continuation_a_bounded_number_of_times():
    """Each shared `if` choosing a dtype copies the statements after it into its branches
    (the code doubles): three are written out and equal the loop for every choice; a fourth
    is a located refusal, not 16 copies."""
    x = np.array([3.0, 20.0, 1.0, np.nan, -0.0], np.float32)
    for c in (-1.0, 0.5, 1.5, 2.5):
        got = vmap(_three_choices, in_axes=(0, None))(x, c)
        want = [_three_choices(v, c) for v in x]
        assert got.dtype == np.asarray(want).dtype
        np.testing.assert_array_equal(got, np.asarray(want))
    with pytest.raises(VectorizeError, match="more than 3"):
        vmap(_four_choices, in_axes=(0, None))(x, -1.0)
