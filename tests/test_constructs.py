"""Constructs real code uses (issue 20), each differential against numpy.vectorize (Python
numbers per example) and, where it applies, vmap against the per-example loop (NumPy
scalars), at N = 0, 1, 5 and 1000."""

from __future__ import annotations

import numpy as np
import pytest
from differential import assert_values_equal

from vectorize import VectorizeError, vectorize, vmap

SIZES = [0, 1, 5, 1000]


def check_vectorize(func, *args, excluded=()):
    want = np.vectorize(func, excluded=set(excluded))(*args) if np.size(args[0]) else None
    g = vectorize(func, excluded=set(excluded), fallback="error")
    got = g(*args)
    got = g(*args)
    if want is not None:
        assert_values_equal(got, want)
        assert got.dtype == want.dtype
    else:
        assert np.shape(got) == np.shape(args[0])


# ------------------------------------------------------------------------------ isinstance
def scale_if_int(x, n):
    if isinstance(n, int):
        return x * n
    return x


def kind_of(x):
    if isinstance(x, bool):
        return 0.0
    if isinstance(x, int):
        return 1.0
    if isinstance(x, (float, np.floating)):
        return 2.0
    return 3.0


def numpy_kind(x):
    if isinstance(x, np.floating):
        return 1.0
    return 0.0


def computed_kind(x):
    y = np.sin(x)
    if isinstance(y, np.floating):
        return 1.0
    return 0.0


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("scale", [3, 3.0, True, np.int64(3)], ids=repr)
def test_isinstance_of_an_argument_is_pythons(n, scale):
    """numpy.vectorize hands each example as a Python number: `isinstance(n, int)` holds for
    an int64 argument (the generated code gets an np.int64, for which it does not)."""
    check_vectorize(scale_if_int, np.linspace(-1.0, 2.0, n), scale)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int8, np.bool_,
                                   np.complex128])
def test_isinstance_per_dtype(dtype):
    x = np.arange(5).astype(dtype)
    check_vectorize(kind_of, x)
    check_vectorize(numpy_kind, x)


@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_vmap_sees_numpy_scalars(dtype):
    x = np.arange(5).astype(dtype)
    for func in (kind_of, numpy_kind):
        want = np.array([func(v) for v in x])
        assert_values_equal(vmap(func, fallback="error")(x), want)
    want = np.array([scale_if_int(v, 3) for v in x])
    assert_values_equal(vmap(scale_if_int, in_axes=(0, None), fallback="error")(x, 3), want)


def test_isinstance_of_a_computed_number_where_python_and_numpy_differ_is_refused():
    with pytest.raises(VectorizeError, match="isinstance"):
        vectorize(computed_kind, fallback="error")(np.arange(3.0))
    # vmap: NumPy scalars throughout, no ambiguity
    x = np.arange(3.0)
    assert_values_equal(vmap(computed_kind, fallback="error")(x),
                        np.array([computed_kind(v) for v in x]))


# ------------------------------------------------------------- callable instances, methods
class Polynomial:
    def __init__(self, coefficients):
        self.coefficients = coefficients

    def __call__(self, x):
        total = 0.0
        for c in self.coefficients:
            total = total * x + c
        if total < 0:
            return -total
        return total

    def clipped(self, x, limit):
        if x > limit:
            return limit
        return x * self.coefficients[0]


@pytest.mark.parametrize("n", SIZES)
def test_callable_instances(n):
    x = np.linspace(-2.0, 3.0, n)
    p = Polynomial((1.0, -2.0, 0.5))
    check_vectorize(p, x)
    if n:
        assert_values_equal(vmap(p, fallback="error")(x), np.array([p(v) for v in x]))
    q = Polynomial((2.0, 1.0))       # another instance: its own coefficients
    check_vectorize(q, x)


@pytest.mark.parametrize("n", SIZES)
def test_methods_exclude_self(n):
    x = np.linspace(-2.0, 3.0, n)
    p = Polynomial((3.0,))
    check_vectorize(p.clipped, x, 1.5)
    if n:
        assert_values_equal(vmap(p.clipped, in_axes=(0, None), fallback="error")(x, 1.5),
                            np.array([p.clipped(v, 1.5) for v in x]))


# ------------------------------------------------------------------- imports in the body
def imports_math(x):
    import math
    return math.sin(x) + math.sqrt(abs(x))


def imports_names(x):
    """Docstring first."""
    from math import cos as c
    from math import sin
    y = sin(x) * c(x)
    if y > 0.1:
        return y
    return -y


def imports_numpy_submodule(v):
    import numpy.linalg as la
    return la.norm(v)


def imports_under_a_condition(x):
    if x > 0:
        import math
        return math.sin(x)
    return x


@pytest.mark.parametrize("func", [imports_math, imports_names], ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", SIZES)
def test_imports_in_the_body(func, n):
    x = np.linspace(-2.0, 3.0, n)
    check_vectorize(func, x)
    if n:
        assert_values_equal(vmap(func, fallback="error")(x), np.array([func(v) for v in x]))


def test_an_imported_submodule_with_a_signature():
    v = np.arange(12.0).reshape(4, 3)
    got = vectorize(imports_numpy_submodule, signature="(n)->()", fallback="error")(v)
    assert_values_equal(got, np.vectorize(imports_numpy_submodule, signature="(n)->()")(v))


def test_an_import_under_a_condition_is_still_refused():
    with pytest.raises(VectorizeError, match="import"):
        vectorize(imports_under_a_condition, fallback="error")(np.arange(3.0))


# ------------------------------------------------------------ nested def and lambdas
def nested_def(x):
    def squared_distance(v, w=1.0):
        d = v - w
        if d < 0:
            return -d * d
        return d * d
    return squared_distance(x) + squared_distance(x, 2.0)


def nested_lambda(x):
    cube = lambda v: v * v * v  # noqa: E731
    return cube(x) - cube(1.5)


def nested_def_reads_a_global(x):
    def shifted(v):
        return np.abs(v - SHIFT)
    return shifted(x)


SHIFT = 0.25


def closure_over_a_parameter(x, k):
    def scaled(v):
        return v * k
    return scaled(x)


@pytest.mark.parametrize("func", [nested_def, nested_lambda, nested_def_reads_a_global],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", SIZES)
def test_nested_helpers(func, n):
    x = np.linspace(-2.0, 3.0, n)
    check_vectorize(func, x)
    if n:
        assert_values_equal(vmap(func, fallback="error")(x), np.array([func(v) for v in x]))


def closure_lambda_over_a_local(x, k):
    offset = k * 2.0
    bump = lambda v, w: v * w + offset  # noqa: E731
    offset = offset + 1.0               # read when the lambda runs, as Python does
    return bump(x, k) - bump(1.0, x * 2.0)


def closure_with_statements(x, k):
    def scaled(v):
        w = v * k
        return w + 1.0
    return scaled(x)


@pytest.mark.parametrize("func", [closure_over_a_parameter, closure_lambda_over_a_local],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", SIZES)
def test_closures_of_one_expression_are_inlined(func, n):
    x = np.linspace(-2.0, 3.0, n)
    check_vectorize(func, x, np.linspace(1.0, 2.0, n))
    check_vectorize(func, x, 0.5)
    if n:
        k = np.linspace(1.0, 2.0, n)
        assert_values_equal(vmap(func, fallback="error")(x, k),
                            np.array([func(a, b) for a, b in zip(x, k)]))


def closure_returning_twice(x, k):
    def scaled(v):
        if v > 1:
            return v * k
        return v
    return scaled(x)


def test_a_closure_of_several_statements_is_inlined():
    check_vectorize(closure_with_statements, np.arange(3.0), 2.0)
    check_vectorize(closure_with_statements, np.arange(3.0), np.arange(3.0))


def test_a_closure_with_several_returns_is_refused():
    with pytest.raises(VectorizeError, match="def"):
        vectorize(closure_returning_twice, fallback="error")(np.arange(3.0), 2.0)
    with pytest.warns(Warning):
        got = vectorize(closure_returning_twice)(np.arange(3.0), 2.0)
    assert_values_equal(got, np.vectorize(closure_returning_twice)(np.arange(3.0), 2.0))


# ----------------------------------------------------- comprehensions over fixed sequences
WEIGHTS = (0.5, -1.0, 2.0)


def powers_by_index(x):
    terms = [x ** k for k in range(4)]
    return terms[0] + terms[1] * terms[3] - terms[2]


def weighted_table(x):
    scaled = [w * x + 1.0 for w in WEIGHTS]
    if scaled[0] > scaled[2]:
        return scaled[1]
    return scaled[0] - scaled[2]


def unpacked(x):
    lo, mid, hi = [x * w for w in WEIGHTS]
    return lo + mid * hi


def backwards_range(x):
    terms = [x - k for k in range(3, -3, -2)]
    return terms[0] * terms[1] + terms[2]


@pytest.mark.parametrize("func", [powers_by_index, weighted_table, unpacked, backwards_range],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", SIZES)
def test_comprehensions_over_fixed_sequences(func, n):
    x = np.linspace(-2.0, 3.0, n)
    check_vectorize(func, x)
    if n:
        assert_values_equal(vmap(func, fallback="error")(x), np.array([func(v) for v in x]))


def test_a_rebound_table_respecializes(monkeypatch):
    x = np.linspace(-2.0, 3.0, 5)
    g = vectorize(weighted_table, fallback="error")
    g(x)
    monkeypatch.setitem(globals(), "WEIGHTS", (1.0, 2.0, 3.0, 4.0))   # another length
    assert_values_equal(g(x), np.vectorize(weighted_table)(x))


# ------------------------------------------------------------------------ **kwargs
def with_options(x, lo=0.0, **options):
    scale = options.get("scale", 2.0)
    if x < lo:
        return lo
    return x * scale


@pytest.mark.parametrize("n", SIZES)
def test_a_var_keyword_parameter_left_empty(n):
    x = np.linspace(-2.0, 3.0, n)
    check_vectorize(with_options, x)
    check_vectorize(with_options, x, 0.5)
    if n:
        got = vectorize(with_options, fallback="error")(x, lo=-1.0)
        assert_values_equal(got, np.vectorize(with_options)(x, lo=-1.0))


def test_keyword_arguments_into_it_run_numpys_loop():
    x = np.linspace(-2.0, 3.0, 5)
    with pytest.raises(VectorizeError, match=r"\*\*"):
        vectorize(with_options, fallback="error")(x, scale=3.0)
    got = vectorize(with_options, fallback="loop")(x, scale=3.0)
    assert_values_equal(got, np.vectorize(with_options)(x, scale=3.0))
