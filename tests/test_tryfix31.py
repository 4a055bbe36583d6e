"""Keyword calls of helpers inside a ``try`` (`passes.try_except`), and a computation the
same for every example that raises in Python: `vectorize` against numpy.vectorize (values,
dtype, exception type), `vmap` against the per-example loop."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vectorize import vectorize, vmap


def _outcome(call):
    try:
        return call(), None
    except Exception as e:      # noqa: BLE001 (the exception's type is compared)
        return None, e


def _check(f, *args, **options):
    expected, exc = _outcome(lambda: np.vectorize(f, **options)(*args))
    got, got_exc = _outcome(lambda: vectorize(f, fallback="error", **options)(*args))
    assert type(got_exc) is type(exc), (got_exc, exc)
    if exc is None:
        assert got.dtype == expected.dtype and got.shape == expected.shape, (got, expected)
        np.testing.assert_array_equal(got, expected)


def _loop(f, *args):
    return np.stack([np.asarray(f(*a)) for a in zip(*args)])


def _scaled(x, scale=1.0, shift=0.0):
    return 1.0 / (x * scale) + shift


def _keywords_in_try(a):
    try:
        z = _scaled(a, shift=2.0, scale=0.5)
    except ZeroDivisionError:
        z = -1.0
    return z


def _root_of(x, *, floor=0.0):
    return math.sqrt(x - floor)


def _keyword_only_in_try(a, b):
    try:
        z = _root_of(a, floor=b) + 1.0
    except ValueError:
        z = -math.inf
    return z


def test_a_helper_called_with_keywords_inside_a_try_takes_the_handler_per_example():
    # was refused: "a call with keywords or `*` inside a `try`"
    _check(_keywords_in_try, np.array([0.0, 1.0, 2.0, -0.5]))
    _check(_keyword_only_in_try, np.array([0.0, 1.0, 4.0, -1.0]), np.array([1.0, 0.0, 0.0, 2.0]))
    x = np.array([1.0, 4.0, 0.5])
    np.testing.assert_array_equal(vmap(_keyword_only_in_try)(x, x * 0.0),
                                  _loop(_keyword_only_in_try, x, x * 0.0))


def _keyword_not_a_parameter(a):
    try:
        z = _scaled(a, width=2.0)
    except ZeroDivisionError:
        z = -1.0
    return z


def test_a_keyword_the_helper_does_not_take_raises_typeerror_or_is_refused_located():
    from vectorize import VectorizeError
    with pytest.raises(TypeError):
        np.vectorize(_keyword_not_a_parameter)(np.array([1.0, 2.0]))
    with pytest.raises((TypeError, VectorizeError)) as refused:
        vectorize(_keyword_not_a_parameter, fallback="error")(np.array([1.0, 2.0]))
    if refused.type is VectorizeError:
        assert "test_tryfix31.py:" in str(refused.value)


def _pair(x):
    return x - 1.0, x + 1.0


def _ratio(s, c):
    return s / c


def _starred_in_try(a):
    try:
        z = _ratio(*_pair(a))
    except ZeroDivisionError:
        z = math.inf
    return z


def test_a_helper_called_with_a_starred_pair_inside_a_try_takes_the_handler_per_example():
    # (pygeodesy's `tand`: `_tanu(*sincos2d(deg))`) was refused: "a call with keywords or `*`"
    x = np.array([0.0, 1.0, -1.0, 3.0])
    _check(_starred_in_try, x)
    np.testing.assert_array_equal(vmap(_starred_in_try)(x), _loop(_starred_in_try, x))


def _ordered_complex(a, b):
    y = (b + 0j) ** 0.5
    z = max(y, round(b, -1)) + int(a)
    return z


def _ordered_before_division(a, b):
    z = max(b, 1j) + 1 / a      # Python raises TypeError before it divides by a = 0
    return z


def _rounded_complex(a, b):
    return round(b + 0j) * a


def _after_a_per_example_if(a, b):
    c = a * 2
    if a > 0:
        c = c + 1
    w = max(b, 1j)
    return w + c


@pytest.mark.parametrize("f", [_ordered_complex, _ordered_before_division, _rounded_complex,
                               _after_a_per_example_if])
def test_a_shared_call_that_raises_raises_for_the_batch_as_for_every_example(f):
    # was refused: "cannot tell the shape of an unbatched operand" (the call's value unknown)
    for a in (np.array([1.0, 2.0]), np.array([0.0, -3.0, 2.5])):
        _check(f, a, 10, excluded={1})
        _check(f, a, -4, excluded={1})
        with pytest.raises(TypeError):
            vmap(f, in_axes=(0, None))(a, 10)
        with pytest.raises(TypeError):
            _loop(f, a, [10] * len(a))


def _under_a_per_example_if(a, b):
    if a > 1:
        z = max(b, 1j) + a
    else:
        z = a
    return z


def test_a_raising_shared_call_under_a_per_example_condition_is_still_refused_located():
    # lanes that do not take the branch must not raise: no example-wide raise there
    from vectorize import VectorizeError
    with pytest.raises(VectorizeError) as refused:
        vectorize(_under_a_per_example_if, fallback="error", excluded={1})(
            np.array([0.5, 2.0]), 10)
    assert "test_tryfix31.py:" in str(refused.value)
    np.testing.assert_array_equal(
        vectorize(_under_a_per_example_if, excluded={1})(np.array([0.5, 0.25]), 10),
        np.vectorize(_under_a_per_example_if, excluded={1})(np.array([0.5, 0.25]), 10))


def _value_dependent(a, b):
    z = int(b) + a      # int(nan) raises ValueError, int(2.5) does not: not by type alone
    return z


def test_a_call_that_raises_for_some_shared_values_only_follows_each_value():
    for b in (2.5, math.nan, -1.5):
        _check(_value_dependent, np.array([1.0, 2.0]), b, excluded={1})


def _complex_modulo(a, b):
    z = (b * 1j) % 2 + a
    return z


def _complex_ordered(a, b):
    z = (b * 1j) < 2
    return z + a


def _chain_stops_before_the_complex(a, b):
    z = 5 < b < 1j      # False at `5 < b` (b = 3): Python never compares b with 1j
    return z + a


def _chain_reaches_the_complex(a, b):
    z = 1 < b < 1j
    return z + a


@pytest.mark.parametrize("f", [_complex_modulo, _complex_ordered,
                               _chain_stops_before_the_complex, _chain_reaches_the_complex])
def test_a_shared_operator_that_raises_typeerror_raises_it_for_the_batch(f):
    # was refused: "cannot tell the shape of an unbatched operand"
    a = np.array([1.0, 2.0, -0.5])
    _check(f, a, 3, excluded={1})
    _check(f, a, 3.5, excluded={1})
    expected, exc = _outcome(lambda: _loop(f, a, [3] * len(a)))
    got, got_exc = _outcome(lambda: vmap(f, in_axes=(0, None))(a, 3))
    assert type(got_exc) is type(exc), (got_exc, exc)
    if exc is None:
        np.testing.assert_array_equal(got, expected)


def _ordered_before_int(a, b):
    z = max(b, 1j) + int(a)     # Python raises TypeError before int(nan)'s ValueError
    return z


def test_checks_of_operations_after_a_raising_shared_call_are_made_after_it():
    # the generated code tested int(a)'s NaN before calling max: ValueError first, where
    # only the per-example replay put Python's TypeError back
    x = np.array([np.nan, 1.0])
    _check(_ordered_before_int, x, 2, excluded={1})
    _check(_ordered_before_division, np.array([0.0, 1.0]), 2, excluded={1})
    for f, a in ((_ordered_before_int, x), (_ordered_before_division, np.array([0.0, 1.0]))):
        code = vectorize(f, excluded={1}).source(a, 2)
        body = code[code.index("def "):]
        assert body.index("max(") < body.index("raise "), code


def _after_an_early_return(a, b):
    if a > 1:
        return a
    w = max(b, 1j)      # only the lanes with a <= 1 get here
    return w + a


def test_a_raising_shared_call_after_a_per_example_return_is_not_raised_for_every_lane():
    # lanes that returned must not make the batch raise: refused (located) with
    # fallback="error", the per-example loop otherwise
    from vectorize import VectorizeError
    x = np.array([2.0, 3.0])
    with pytest.raises(VectorizeError) as refused:
        vectorize(_after_an_early_return, fallback="error", excluded={1})(x, 3)
    assert "test_tryfix31.py:" in str(refused.value)
    with pytest.warns(Warning):
        got = vectorize(_after_an_early_return, excluded={1})(x, 3)
    expected = np.vectorize(_after_an_early_return, excluded={1})(x, 3)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)
