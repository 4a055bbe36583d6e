"""A test calling a helper of the user's that cannot raise (a type predicate) is decided from
its result: only the side Python runs is analysed (pygeodesy's `cbrt`: `if
_isFsum_2Tuple(x): r = abs(x).fpow(...)`), while a helper that may raise keeps its test
undecided (tests/test_fuzz33.py)."""

import numpy as np
import pytest

from vectorize import VectorizeError, vectorize, vmap


class Box:
    def fpow(self, p):
        return self


_BOXES = (Box, list)


def _is_box(x):
    '''Is `x` a Box?'''
    return isinstance(x, _BOXES)


def _is_box_or_none(x, y):
    return isinstance(x, _BOXES) or y is None


def _may_raise(x):
    return isinstance(x, _BOXES) or 1 / 0 > 0


def cube(x):
    if _is_box(x):
        r = abs(x).fpow(1 / 3)
    else:
        r = x * x * x
    return r


def cube_or(x):
    if not _is_box_or_none(x, 1.0):
        return x * 2.0
    return x.fpow(3)


def cube_raising(x):
    if _may_raise(x):
        return x.fpow(3)
    return x * 2.0


X = np.array([1.0, -2.0, 0.0, -0.0, np.nan, np.inf])


@pytest.mark.parametrize("api", ["vectorize", "vmap"])
def test_a_type_predicate_helper_decides_its_test(api):
    if api == "vectorize":
        got, want = vectorize(cube)(X), np.vectorize(cube)(X)
    else:
        got, want = vmap(cube)(X), np.stack([cube(v) for v in X])
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype


def test_a_type_predicate_of_two_parameters_with_an_identity_test():
    got = vectorize(cube_or)(X)
    np.testing.assert_array_equal(got, np.vectorize(cube_or)(X))


def test_a_helper_that_may_raise_keeps_its_test_undecided():
    # per example `1 / 0` raises ZeroDivisionError: never the `x * 2.0` side
    with pytest.raises((ZeroDivisionError, VectorizeError)):
        vectorize(cube_raising, fallback="error")(X)
    with pytest.raises(ZeroDivisionError):
        np.vectorize(cube_raising)(X)
