"""Warnings raised as errors (``with warnings.catch_warnings(): warnings.simplefilter(
"error")``, the idiom of geodesy code around NumPy arithmetic that may divide by zero or
take a root of a negative number): `vectorize` against numpy.vectorize (values, dtype,
exception type), `vmap` against the per-example loop, with inputs that take the handler on
some lanes, all lanes and none; N = 0, 1, 5."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from differential import check_exactly, check_vmap_exactly

from vectorize import VectorizeError, vectorize, vmap


def _check(f, *args):
    check_exactly(f, *args)


def _check_vmap(f, *args):
    check_vmap_exactly(f, *args)


def _conformal(lat, e=0.08181919084262149):
    # (the shape of a conformal latitude: a pole divides by zero in NumPy)
    s = np.sin(lat)
    f1 = 1 - e * s
    f2 = 1 + e * s
    f3 = 1 - s
    f4 = 1 + s
    try:
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("error")
            c = 2 * np.arctan(np.sqrt((f4 / f3) * ((f1 / f2) ** e))) - (math.pi / 2)
    except (ArithmeticError, RuntimeWarning):
        c = math.pi / 2
    return c


def _two_handlers(x, y):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            r = np.sqrt(x) / y      # a NumPy quotient: warns, never ZeroDivisionError
            q = x / y               # Python numbers (`vectorize`): ZeroDivisionError
    except ZeroDivisionError:
        return -1.0
    except RuntimeWarning:
        return -2.0
    return r + q


def _no_handler(x, y):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = np.log(x) / y
    return r + 1.0


def _ignored(x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = np.log(x)
    return r * 2.0


def _python_product(x):
    # Python floats overflow to inf silently; numpy.vectorize's first call, on NumPy
    # scalars, warns there (and so raises)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = x * 1e300
    return r


def _helper(x):
    return np.log(x)


def _helper_inside(x):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            r = _helper(x)
    except RuntimeWarning:
        r = 0.0
    return r


LATS = {
    "none": np.array([0.1, -0.4, 1.0, 0.7, -1.2]),
    "some": np.array([0.1, math.pi / 2, -0.3, math.pi / 2, 1.0]),
    "all": np.full(5, math.pi / 2),
    "nan": np.array([math.nan, 0.2, math.inf, -math.inf, 0.0]),
}


@pytest.mark.parametrize("n", [0, 1, 5])
@pytest.mark.parametrize("lanes", sorted(LATS))
def test_a_numpy_warning_raised_as_an_error_takes_the_handler_on_its_lanes(lanes, n):
    # was refused: "a `try` around anything but simple statements" at the `with`
    lat = LATS[lanes][:n]
    _check(_conformal, lat)
    _check_vmap(_conformal, lat)


@pytest.mark.parametrize("x, y", [
    ([4.0, -1.0, 4.0, 9.0, 0.0], [2.0, 1.0, 0.0, 3.0, 0.0]),    # some lanes warn
    ([4.0, 9.0, 1.0, 16.0, 25.0], [2.0, 3.0, 1.0, 4.0, 5.0]),   # none
    ([-1.0, -4.0, -9.0, -2.0, -3.0], [1.0, 1.0, 1.0, 1.0, 1.0]),    # all
])
def test_numpy_warnings_and_python_errors_take_their_own_handlers(x, y):
    _check(_two_handlers, np.array(x), np.array(y))
    _check(_two_handlers, np.array(x[:1]), np.array(y[:1]))


def test_the_handler_of_a_numpy_division_under_vmap():
    x = np.array([4.0, -1.0, 4.0, 9.0, 0.0])
    y = np.array([2.0, 1.0, 0.0, 3.0, 0.0])
    _check_vmap(_two_handlers, x, y)     # (NumPy scalars: both quotients warn)
    _check_vmap(_no_handler, np.abs(x) + 1.0, y + 1.0)


@pytest.mark.parametrize("x, y", [
    ([1.0, 2.0, 3.0], [1.0, 2.0, 0.0]),     # the last divides by zero: RuntimeWarning
    ([1.0, 0.0, 3.0], [1.0, 2.0, 1.0]),     # log(0): RuntimeWarning
    ([1.0, 2.0, 3.0], [1.0, 2.0, 3.0]),     # none warns
    ([], []),
])
def test_a_warning_raised_as_an_error_with_no_handler_raises_as_the_loop(x, y):
    _check(_no_handler, np.array(x), np.array(y))
    _check_vmap(_no_handler, np.array(x), np.array(y))


def test_warnings_ignored_in_a_block_are_its_statements():
    x = np.array([1.0, 0.0, -1.0, 4.0, 2.0])
    _check(_ignored, x)
    _check_vmap(_ignored, x)


@pytest.mark.parametrize("x", [[2.0, 1e10], [1e10, 2.0], [3.0]])
def test_python_arithmetic_does_not_warn_but_numpy_vectorize_first_call_does(x):
    _check(_python_product, np.array(x))


def test_a_call_whose_warnings_the_engine_does_not_know_is_refused_located():
    with pytest.raises(VectorizeError) as info:
        vectorize(_helper_inside, fallback="error")(np.array([1.0, 0.0]))
    assert "test_try32.py" in str(info.value) and "warnings" in str(info.value)


def test_the_warning_test_is_exact_for_numpy_ufuncs_and_arithmetic():
    # the rule `warned` writes: NaN from non-NaN operands, or inf from finite ones
    vals = [0.0, -0.0, 1.0, -2.5, 1e308, -1e308, 5e-324, math.inf, -math.inf, math.nan]
    two = [np.add, np.subtract, np.multiply, np.divide, np.hypot, np.floor_divide,
           np.remainder, lambda a, b: a ** b]   # (`**` of NumPy scalars; the ufunc is refused)
    one = [np.sqrt, np.log, np.log1p, np.exp, np.sin, np.cos, np.tan, np.arcsin, np.arccos,
           np.arccosh, np.arctanh, np.sinh, np.cosh, np.degrees, np.radians]

    def warns(f, *a):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                f(*(np.float64(v) for v in a))
            except RuntimeWarning:
                return True
        return False

    def rule(f, *a):
        with np.errstate(all="ignore"):
            r = float(f(*(np.float64(v) for v in a)))
        return (math.isnan(r) and not any(math.isnan(v) for v in a)) or (
            math.isinf(r) and all(math.isfinite(v) for v in a))
    for f in two:
        for a in vals:
            for b in vals:
                assert warns(f, a, b) == rule(f, a, b), (f, a, b)
    for f in one:
        for a in vals:
            assert warns(f, a) == rule(f, a), (f, a)


class _Ellipsoid:
    def __init__(self, name):
        if name not in ("a", "b"):
            raise ValueError(f"no ellipsoid {name!r}")
        self.a = 6378137.0 if name == "a" else 6356752.3
        self.e = 0.08181919084262149 if name == "a" else 0.0

    @classmethod
    def from_name(cls, name):
        return cls(name)


def _radius(x):
    try:
        ell = _Ellipsoid.from_name("b")
        r = ell.a * math.sqrt(x)
    except ValueError:
        r = -1.0
    return r


def _radius_unknown(x):
    try:
        ell = _Ellipsoid.from_name("zz")     # raises on every example
        r = ell.a * x
    except ValueError:
        r = -1.0
    return r


def _radius_of(x, ell=None):
    if ell is None:
        ell = _Ellipsoid(name="a")
    try:
        r = math.sqrt(x) * ell.a
    except ValueError:
        r = 0.0
    return r


def _scalar_or_array(x):
    # (code that also runs without NumPy: no example takes the NameError handlers)
    try:
        x = np.asarray(x)
    except NameError:
        pass
    try:
        lim = math.pi / 2 - np.finfo(x.dtype).eps
    except NameError:
        lim = math.pi / 2
    return np.minimum(x, lim)


@pytest.mark.parametrize("x", [[4.0, -1.0, 9.0, 0.0, 2.0], [4.0, 9.0], [-1.0], []])
def test_a_class_made_of_values_the_same_for_every_example_inside_a_try(x):
    # was refused: "a call inside a `try` whose exceptions the engine does not know"
    x = np.array(x)
    for f in (_radius, _radius_of):
        _check(f, x)
        _check_vmap(f, x)
    # (one that raises on every example: the analysis cannot tell `ell.a`, refused located)
    with pytest.raises(VectorizeError, match="test_try32.py"):
        vectorize(_radius_unknown, fallback="error")(x)


def test_an_attribute_under_nameerror_handlers_no_example_takes():
    # was refused: "an attribute read inside a `try`" (`x.dtype`)
    x = np.array([0.5, 2.0, -3.0, math.pi / 2, 1.0])
    _check_vmap(_scalar_or_array, x)
    # (`vectorize`: `x.dtype` where `x = np.asarray(x)` reaches it, a 0-d array per example)
    _check(_scalar_or_array, x)


def _unbound_local(x):
    # (the handler IS taken: `y` is a local not bound yet, UnboundLocalError is a NameError)
    try:
        z = y * 2.0
    except NameError:
        z = x
    y = 1.0
    return z + y


def test_a_nameerror_handler_around_a_local_not_bound_yet_is_not_dropped():
    # (the engine refuses the read of `y` located; never the body's answer without `y`)
    x = np.array([1.0, 2.0, 3.0])
    try:
        got = vectorize(_unbound_local, fallback="error")(x)
    except VectorizeError as e:
        assert "test_try32.py" in str(e)
    else:
        np.testing.assert_array_equal(got, np.vectorize(_unbound_local)(x))


def test_on_torch_tensors_which_never_warn_a_numpy_warning_test_is_refused():
    torch = pytest.importorskip("torch")
    x = torch.tensor([0.1, math.pi / 2, 1.0])
    with pytest.raises(VectorizeError, match="test_try32.py") as info:
        vmap(_conformal)(x)
    assert "never warn" in str(info.value)
    # (Python arithmetic in the block warns on no backend)
    got = vmap(_python_product)(torch.tensor([2.0, 3.0]))
    torch.testing.assert_close(got, torch.tensor([2.0, 3.0]) * 1e300)


class _Box:
    def __init__(self, v):
        self.v = v


def _unknown_operand(x, box=None):
    b = _Box(np.float64(1e300)) if box is None else box
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            r = b.v * x     # NumPy's on every example: warns where it overflows
    except RuntimeWarning:
        r = -1.0
    return r


def test_arithmetic_of_operands_of_unknown_types_in_a_warnings_block_is_refused():
    # (taken for Python numbers, it would miss the handler on the lanes that overflow)
    x = np.array([1.0, 1e10, 2.0])
    for call in (vectorize(_unknown_operand, fallback="error"), vmap(_unknown_operand)):
        try:
            got = call(x)
        except VectorizeError as e:
            assert "test_try32.py" in str(e)
        else:
            np.testing.assert_array_equal(got, [1e300, -1.0, 2e300])


def _conformal_of(lat, ell=None):
    # (pymap3d's shape: a default ellipsoid made in the body, its eccentricity a power)
    if ell is None:
        ell = _Ellipsoid.from_name("a")
    e = ell.e
    f1 = 1 - e * np.sin(lat)
    f2 = 1 + e * np.sin(lat)
    f3 = 1 - np.sin(lat)
    f4 = 1 + np.sin(lat)
    try:
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("error")
            c = 2 * np.arctan(np.sqrt((f4 / f3) * ((f1 / f2) ** e))) - (math.pi / 2)
    except (ArithmeticError, RuntimeWarning):
        c = math.pi / 2
    return c


@pytest.mark.parametrize("lanes", sorted(LATS))
def test_a_default_object_made_in_the_body_and_its_attributes_in_a_warnings_block(lanes):
    # was refused: "`**` of values that may be arrays" (`e` an attribute of `ell`, rebound)
    _check(_conformal_of, LATS[lanes])
    _check_vmap(_conformal_of, LATS[lanes])


def _int_product(n):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            r = np.absolute(n) * 10**17     # an int64: overflows (and warns) for n >= 93
    except RuntimeWarning:
        r = -1
    return r


def test_numpy_integers_whose_overflow_warns_are_refused_not_missed():
    n = np.array([1, 100, 3])
    for call, want in ((vectorize(_int_product, fallback="error"), np.vectorize(_int_product)),
                       (vmap(_int_product), lambda v: np.stack([_int_product(a) for a in v]))):
        try:
            got = call(n)
        except VectorizeError as e:
            assert "test_try32.py" in str(e) and "integers" in str(e)
        else:
            np.testing.assert_array_equal(got, want(n))
