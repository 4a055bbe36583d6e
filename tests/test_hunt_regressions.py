"""Regressions found by differential hunting with input patterns the program generators do not
make (int and complex dtypes, views, 0-d arrays, NumPy scalars): each test compares with
numpy.vectorize (values, dtype, exception type) or the per-example loop, and fails without
its fix."""

import functools
import math
import warnings

import numpy as np
import pytest

from vectorize import VectorizeError, vectorize, vmap


def _numpy_vectorize(f, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return np.vectorize(f)(*args), None
        except Exception as exc:  # noqa: BLE001 -- the reference's outcome
            return None, exc


def _same(got, expected):
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    np.testing.assert_array_equal(got, expected)
    if got.dtype.kind == "f":
        np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))


# ------------------------------------------------------------- math.fmod of ints is a float
def fmod_ints(x, y):
    return math.fmod(x, y)


def fmod_literal(x):
    return math.fmod(x, 3)


def fmod_of_shared(x, k):
    return math.fmod(k, x)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int16, np.uint8])
@pytest.mark.parametrize("n", [0, 1, 5])
def test_math_fmod_of_ints_is_a_float(dtype, n):
    # was np.fmod(int, int): an int array (and 0 for -0.0) where math.fmod gives floats
    x = np.array([5, 7, -3, 9, 4][:n]).astype(dtype)
    for f, args in ((fmod_ints, (x, 3)), (fmod_literal, (x,)), (fmod_of_shared, (x + 1, 7))):
        got = vectorize(f, fallback="error")(*args)
        if n == 0:
            assert got.dtype == np.float64 and got.shape == (0,)
            continue
        expected, _ = _numpy_vectorize(f, *args)
        _same(got, expected)


def test_math_fmod_of_ints_under_vmap():
    x = np.array([5, 7, -3, 9])
    got = vmap(fmod_literal, fallback="error")(x)
    _same(got, np.stack([fmod_literal(v) for v in x]))


# ---------------------------- complex numbers have no order and no real value in Python
def less(x, y):
    return x < y


def chained(x):
    return 0 < x <= 2


def branch(x, y):
    if x > y:
        return x - y
    return y - x


def smallest(x, y):
    return min(x, y)


def root(x):
    return math.sqrt(x)


def floor(x):
    return math.floor(x)


def as_int(x):
    return int(x)


def as_float(x):
    return float(x) + 1.0


def rounded(x):
    return round(x)


COMPLEX_ONLY_REAL = [(less, 2), (chained, 1), (branch, 2), (smallest, 2), (root, 1),
                     (floor, 1), (as_int, 1), (as_float, 1), (rounded, 1)]


@pytest.mark.parametrize("f, arity", COMPLEX_ONLY_REAL, ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_real_only_operations_of_complex_numbers(f, arity, dtype):
    # were computed (NumPy orders complex numbers lexicographically, math.sqrt became np.sqrt
    # of a complex, int() dropped the imaginary part) where Python raises TypeError
    z = np.array([1 + 2j, -0.5 + 0j, 3 - 1j], dtype=dtype)
    args = (z, z[::-1].copy())[:arity]
    _, expected = _numpy_vectorize(f, *args)
    assert isinstance(expected, TypeError)
    with pytest.raises(VectorizeError, match="complex"):
        vectorize(f, fallback="error")(*args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(TypeError):
            vectorize(f)(*args)      # the per-example loop: Python's TypeError


def test_complex_equality_and_abs_still_vectorize():
    def f(z, w):
        return (z == w) | (abs(z) > 1.0)
    z = np.array([1 + 2j, 0.5 + 0j, 3 - 1j])
    w = np.array([1 + 2j, 1 + 0j, 0j])
    got = vectorize(f, fallback="error")(z, w)
    expected, _ = _numpy_vectorize(f, z, w)
    _same(got, expected)


def test_complex_order_under_vmap_is_numpys():
    # NumPy scalars order complex numbers (lexicographically): vmap keeps that
    z = np.array([1 + 2j, -0.5 + 0j, 3 - 1j])
    w = z[::-1].copy()
    got = vmap(less, fallback="error")(z, w)
    _same(got, np.stack([less(a, b) for a, b in zip(z, w)]))


# ------------------------------- int(), round(), math.floor/ceil of narrow ints: Python ints
def as_int_twice(x):
    return int(x) * 2


def floor_plus_one(x):
    return math.floor(x) + 1


def ceil_of(x):
    return math.ceil(x)


def trunc_of(x):
    return math.trunc(x)


def round_of(x):
    return round(x)


@pytest.mark.parametrize("f", [as_int_twice, floor_plus_one, ceil_of, as_int, rounded],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.uint32,
                                   np.bool_])
def test_python_int_conversions_of_narrow_ints_are_int64(f, dtype):
    # were the argument's own dtype (int8...): numpy.vectorize stores the Python ints in
    # int64 (and x * 2 then wrapped in int8)
    x = np.array([5, 127, 0, 1, 100]).astype(dtype)
    expected, exc = _numpy_vectorize(f, x)
    if exc is not None:      # round(True): numpy.bool has no __round__
        assert isinstance(exc, TypeError)
        with pytest.raises(VectorizeError):
            vectorize(f, fallback="error")(x)
        return
    _same(vectorize(f, fallback="error")(x), expected)
    _same(vmap(f, fallback="error")(x), np.stack([f(v) for v in x]))


@pytest.mark.parametrize("dtype", [np.int64, np.int8, np.uint64, np.bool_, np.float32])
def test_math_trunc_of_numpy_scalars_without_trunc(dtype):
    # NumPy's scalars other than float64 have no __trunc__: the per-example loop (vmap) and
    # numpy.vectorize's first call raise TypeError; the batch returned the values
    x = np.array([5, 7, 0, 1]).astype(dtype)
    _, exc = _numpy_vectorize(trunc_of, x)
    assert isinstance(exc, TypeError)
    for wrap in (vectorize, vmap):
        with pytest.raises(VectorizeError, match="__trunc__"):
            wrap(trunc_of, fallback="error")(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(TypeError):
            vectorize(trunc_of)(x)
    floats = x.astype(float)     # float64 has it: vectorized
    _same(vectorize(trunc_of, fallback="error")(floats), np.vectorize(trunc_of)(floats))


# ------------------------------------------------ 0 to a complex or negative complex power
def power(x, y):
    return x ** y


def guarded_power(x, y):
    if abs(x) > 0:
        return x ** y
    return x


@pytest.mark.parametrize("f, args", [
    (power, (np.array([1 + 2j, 0j, 3.5 - 1j]), np.array([2 + 0j, 1j, 0.5 + 0j]))),
    (power, (np.array([1 + 2j, 0j]), -1.0)),
    (power, (np.array([2.0, 0.0]), np.array([2 + 0j, 1j]))),
    (power, (np.array([1 + 2j, 0j], dtype=np.complex64), np.array([2 + 0j, -1 + 0j]))),
])
def test_zero_to_a_negative_or_complex_power_raises(f, args):
    # was 0 ** 1j computed as nan+nanj by NumPy, where Python raises ZeroDivisionError
    _, expected = _numpy_vectorize(f, *args)
    assert isinstance(expected, ZeroDivisionError)
    with pytest.raises(ZeroDivisionError):
        vectorize(f, fallback="error")(*args)


def test_complex_powers_that_do_not_raise_are_vectorized():
    z = np.array([1 + 2j, 0j, 3.5 - 1j, 2 + 0j])
    w = np.array([2 + 0j, 1j, 0j, -1 + 0.5j])
    for f, args in ((guarded_power, (z, w)), (power, (z, 2)), (power, (z, w[[0, 2, 2, 3]]))):
        expected, exc = _numpy_vectorize(f, *args)
        assert exc is None
        np.testing.assert_allclose(vectorize(f, fallback="error")(*args), expected,
                                   rtol=1e-12)


@pytest.mark.parametrize("f", [as_int_twice, floor_plus_one, ceil_of, as_int, rounded],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("values", [[5, 7, 0], [5, 2**63 + 5, 7], [2**64 - 1, 3, 1]],
                         ids=["small", "beyond-int64", "first-beyond-int64"])
def test_python_int_conversions_of_uint64(f, values):
    # were uint64 results (wrong dtype), also beyond int64 where numpy.vectorize cannot store
    # the Python int in its int64 output (OverflowError) or makes an object array
    x = np.array(values, dtype=np.uint64)
    expected, exc = _numpy_vectorize(f, x)
    if exc is not None:
        with pytest.raises(type(exc)):
            vectorize(f, fallback="error")(x)
        return
    got = vectorize(f, fallback="error")(x)
    assert got.dtype == expected.dtype and got.tolist() == expected.tolist()


# ------------------------------------------------ np.outer keeps the sign of -0.0 products
def outer(u, v):
    return np.outer(u, v)


@pytest.mark.parametrize("in_axes", [(0, 0), (0, None), (None, 0)])
def test_outer_products_keep_negative_zeros(in_axes):
    # was one einsum, which adds each product to 0.0: -1.0 * 0.0 came out 0.0, not -0.0
    u = np.array([[-1.0, 2.0, 0.0], [3.0, -0.0, -2.5]])
    v = np.array([[0.0, 1.0], [-2.0, 0.0]])
    args = (u if in_axes[0] == 0 else u[0], v if in_axes[1] == 0 else v[1])
    got = vmap(outer, in_axes=in_axes, fallback="error")(*args)
    expected = np.stack([outer(*[a if ax is None else a[i] for a, ax in zip(args, in_axes)])
                         for i in range(2)])
    _same(got, expected)
    if in_axes == (0, 0):
        _same(vectorize(outer, signature="(n),(m)->(n,m)", fallback="error")(u, v), expected)


# -------------------------------- otypes=: numpy.vectorize's conversion of the Python results
def doubled(x):
    return x * 2


def halved(x):
    return x / 2


@pytest.mark.parametrize("otype", [np.int8, np.uint8, "i", np.int64])
@pytest.mark.parametrize("signature", [None, "()->()"])
@pytest.mark.parametrize("x", [np.array([1, 100, -100, 2**40]),
                               np.array([1.5, 1e10, -0.0]), np.array([1.5, np.nan]),
                               np.array([2.0, np.inf]), np.array([1.5, -2.7, 60.9]),
                               np.array([3, -4, 7])], ids=lambda x: str(x.tolist()))
def test_int_otypes_convert_as_numpy_vectorize(otype, signature, x):
    # were `astype(otype)`: wrapped ints (200 as -56 in int8) and garbage for NaN / inf /
    # floats beyond the type, where numpy.vectorize raises OverflowError / ValueError
    for f in (doubled, halved):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                expected, exc = np.vectorize(f, otypes=[otype], signature=signature)(x), None
            except Exception as e:  # noqa: BLE001 -- the reference's outcome
                expected, exc = None, e
            vf = vectorize(f, otypes=[otype], signature=signature, fallback="error")
            if exc is not None:
                with pytest.raises(type(exc)):
                    vf(x)
            else:
                _same(vf(x), expected)


def test_string_otype_with_a_signature_is_numpy_vectorizes():
    # numpy.vectorize's signature loop makes arrays of one character for otypes=["U5"]
    x = np.array([1.5, 100.25])
    expected = np.vectorize(doubled, otypes=["U5"], signature="()->()")(x)
    got = vectorize(doubled, otypes=["U5"], signature="()->()", fallback="error")(x)
    assert got.dtype == expected.dtype and got.tolist() == expected.tolist()


_INT_TABLE = [10, -20, 30]


def _tuple_at_k(k):
    return (1, 2, 3)[k] * 2


def _list_at_k(k):
    vals = [1, 2, 3]
    return vals[k] * 2


def _module_table_at_k(k):
    return _INT_TABLE[k] + 1


@pytest.mark.parametrize("f", [_tuple_at_k, _list_at_k, _module_table_at_k])
def test_int_table_read_at_a_per_example_index(f):
    """An int table read at a per-example index, then int arithmetic: the overflow check's
    template names the item twice (`v < lo or v > hi`), which put one node object in two
    places; the index guard then expanded itself without end (refused as 'too deeply
    nested')."""
    k = np.array([0, 2, 1, -1, -3, 2])
    got = vectorize(f, fallback="error")(k)
    want = np.vectorize(f)(k)
    assert got.dtype == want.dtype and np.array_equal(got, want)
    with pytest.raises(IndexError):
        vectorize(f, fallback="error")(np.array([0, 3]))


def _pow_of(a, b):
    return pow(a, b)


def _math_pow_of(a, b):
    return math.pow(a, b)


def _gamma_of(x):
    return math.lgamma(x)


@pytest.mark.parametrize("f, args", [
    (_pow_of, (-2.0, np.inf)), (_pow_of, (-0.5, -np.inf)), (_pow_of, (-np.inf, np.nan)),
    (_math_pow_of, (-2.0, np.inf)), (_math_pow_of, (np.array([-2.0, 3.0]), -np.inf)),
    (_gamma_of, (-np.inf,)), (_gamma_of, (np.array([-np.inf, 2.5]),)),
])
def test_checks_on_numpy_scalars_do_not_warn(f, args):
    """A power's check of a fractional exponent (`b % 1 != 0`) ran on NumPy scalars outside
    `np.errstate`: `inf % 1` warned (invalid value) where the example neither warns nor
    raises; the checks reach `%` only for finite values now."""
    want = np.vectorize(f)(*args)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = vectorize(f, fallback="error")(*args)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype
def _outcome(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return call(), None
        except Exception as exc:  # noqa: BLE001 -- the outcome compared
            return None, exc


def _as_numpy_vectorize(f, args, kwargs=None, **options):
    """vectorize(f, **options) against numpy.vectorize(f, **options) on one call: equal
    values and dtypes (an object array item by item), or the same exception type."""
    kwargs = kwargs or {}
    expected, exc = _outcome(lambda: np.vectorize(f, **options)(*args, **kwargs))
    got, got_exc = _outcome(lambda: vectorize(f, fallback="error", **options)(*args, **kwargs))
    if exc is not None:
        assert type(got_exc) is type(exc), (got, got_exc, exc)
        return
    assert got_exc is None, got_exc
    for g, e in zip(got, expected) if isinstance(expected, tuple) else ((got, expected),):
        assert type(g) is type(e) and g.shape == e.shape and g.dtype == e.dtype, (g, e)
        if e.dtype == object:
            assert all(type(a) is type(b) and np.array_equal(a, b) for a, b in zip(g, e))
        else:
            _same(g, e)


# ----------------------- otypes= a complex result cannot be stored as a real or a datetime
def plus_i(x):
    return x + 1j


@pytest.mark.parametrize("otype", ["d", "f", "e", "l", "i", "B", "?", "D", "O"])
@pytest.mark.parametrize("signature", [None, "()->()"])
def test_complex_results_with_real_otypes_raise_as_numpy_vectorize(otype, signature):
    # was astype(otype): the imaginary part dropped, where float(z) / int(z) raise TypeError
    x = np.array([1.5, -2.0, 0.0])
    _as_numpy_vectorize(plus_i, (x,), otypes=[otype], signature=signature)
    _as_numpy_vectorize(plus_i, (x[:0],), otypes=[otype], signature=signature)


@pytest.mark.parametrize("otype", ["M8[s]", "m8[D]", "M", "m"])
@pytest.mark.parametrize("x", [np.array([1.5, 2.0]), np.array([3, -4]),
                               np.array([True, False])], ids=lambda x: x.dtype.name)
def test_datetime_otypes_convert_as_numpy_vectorize(otype, x):
    # was astype(otype): floats truncated into datetimes, and ints given a generic unit,
    # where numpy.vectorize's conversion of the Python results raises ValueError
    _as_numpy_vectorize(doubled, (x,), otypes=[otype])


# ---------------- an excluded list in the arithmetic; an object otype of array results
def added(x, c):
    return x * 2.0 + c


def pair(x):
    return np.array([x, -x])


@pytest.mark.parametrize("c", [[1.0, 2.0], [1.0], (1.0,)], ids=["list", "list1", "tuple"])
@pytest.mark.parametrize("n", [1, 5])
def test_an_excluded_list_in_the_arithmetic_is_numpy_vectorizes(c, n):
    # was added item by item (an (n, 2) array), where Python raises TypeError (1.0 + [1.0])
    x = np.linspace(-1.0, 1.0, n)
    with pytest.raises(VectorizeError, match="Python list or tuple"):
        vectorize(added, excluded={1}, fallback="error")(x, c)
    expected, exc = _outcome(lambda: np.vectorize(added, excluded={1})(x, c))
    got, got_exc = _outcome(lambda: vectorize(added, excluded={1})(x, c))
    assert exc is not None and type(got_exc) is type(exc)
    got, got_exc = _outcome(lambda: vectorize(functools.partial(added, c=c))(x))
    assert type(got_exc) is type(exc)


@pytest.mark.parametrize("n", [1, 5])
def test_object_otypes_of_array_results_are_numpy_vectorizes(n):
    # were one (n, 2) object array of numbers, where numpy.vectorize makes an (n,) object
    # array of the examples' arrays (without otypes the arrays are stacked, as np.array of
    # the results stacks them: docs/semantics.md)
    x = np.linspace(-1.0, 1.0, n)
    _as_numpy_vectorize(pair, (x,), otypes=[object])
    _as_numpy_vectorize(added, (x, np.ones(2)), excluded={1}, otypes=[object])
    assert vectorize(pair)(x).shape == (n, 2)


# ------------------------------------------------ functools.partial with keyword arguments
def scaled(a, b=2, *, c=3):
    return a * b + c


def three(a, b, c):
    return a * b - c


def summed(v, w, scale=1.0):
    return v.sum() * w * scale


@pytest.mark.parametrize("case", range(9))
@pytest.mark.parametrize("n", [0, 1, 5])
def test_partial_with_keywords_is_numpy_vectorizes(case, n):
    # was refused ("not a Python function with source"): the partial's keywords are passed
    # as they are, as numpy.vectorize's calls of the partial pass them, unless the call
    # gives them again (then they are broadcast like any argument)
    x = np.linspace(-2.0, 3.0, n)
    k = np.arange(n) - 2
    p, args, kwargs, options = [
        (functools.partial(scaled, b=4), (x,), {}, {}),
        (functools.partial(scaled, b=4), (x,), {"b": k}, {}),
        (functools.partial(scaled, b=4, c=2.5), (x,), {"c": k}, {}),
        (functools.partial(scaled, 2.0, c=1), (), {"b": x}, {}),
        (functools.partial(three, c=0.5), (x, k), {}, {}),
        (functools.partial(three, b=2), (x,), {"c": k}, {}),
        (functools.partial(three, c=0.5), (x, 2.0), {}, {"excluded": {1}}),
        (functools.partial(summed, scale=2.0), (np.ones((n, 3)), x), {},
         {"signature": "(n),()->()"}),
        (functools.partial(summed, w=2.0), (np.ones((n, 3)),), {}, {"signature": "(n)->()"}),
    ][case]
    if n == 0:
        options["otypes"] = [float]
    for _ in range(2):   # the warm call too
        _as_numpy_vectorize(p, args, kwargs, **options)


# ------------------------------------------- any/all/list/tuple of a tuple display of values
def all_of_tuple(x, y):
    return all((x > 0, y > 0))


def any_of_tuple(x, y):
    return any((x, y - 1.0))


def list_of_tuple(x, y):
    return sum(list((x, y)))


def one_item(x, y):
    return any((x,)) and not all(())


@pytest.mark.parametrize("f", [all_of_tuple, any_of_tuple, list_of_tuple, one_item])
def test_any_all_of_a_tuple_display(f):
    # were refused ("`all` has no batching rule"), where the same list display vectorized
    x = np.array([1.5, -2.0, 0.0, np.nan, 1.0])
    y = np.array([1.0, 2.0, -1.0, 1.0, np.inf])
    _as_numpy_vectorize(f, (x, y))
    _same(vmap(f, fallback="error")(x, y), np.stack([f(a, b) for a, b in zip(x, y)]))


# -------------------- backend="torch" on NumPy arrays: numpy.vectorize's Python exceptions
def divided(x, y):
    return x / y


def divided_by_remainder(x, y):
    return x / ((x % y) and x)


def as_int_plus(x, y):
    return int(x) + y


@pytest.mark.parametrize("f", [divided, divided_by_remainder, as_int_plus])
def test_torch_backend_on_numpy_arrays_raises_as_numpy_vectorize(f):
    # were inf / nan (x / 0.0) and an arbitrary int (int(nan)) with backend="torch": NumPy
    # arrays in are numpy.vectorize's contract, whose examples are Python numbers
    pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    n = 2000
    x, y = rng.normal(size=n), rng.normal(size=n)
    for zero in (None, 0, n - 1):
        if zero is not None:
            x[zero], y[zero] = 0.0, np.nan if f is as_int_plus else 0.0
        expected, exc = _outcome(lambda: np.vectorize(f)(x, y))
        got, got_exc = _outcome(lambda: vectorize(f, backend="torch", fallback="error")(x, y))
        if exc is not None:
            assert type(got_exc) is type(exc), (got, got_exc, exc)
        else:
            assert got_exc is None, got_exc
            np.testing.assert_allclose(got, expected, rtol=1e-12)
            assert got.dtype == expected.dtype


# -------------------------------------------- vmap of a vectorize object, at every level
def branchy(x, y):
    if x > y:
        return x - y
    return x * y


def two_out(x, y, s=2.0):
    return x * s + y, x > y


def core(v, w):
    return v * w.sum(), (v * w).sum()


vbranchy = vectorize(branchy)
vcore = vectorize(core, signature="(n),(n)->(n),()")


def calls_vectorized(x, y):
    if x > 0:
        return vbranchy(x, y) + 1.0
    return y


def calls_vectorized_on_rows(v):
    return vbranchy(v, v[::-1]).sum()


@pytest.mark.parametrize("case", range(7))
def test_vmap_of_a_vectorize_object(case):
    # was refused with a location inside vectorize's own source (`try` in api.py): the
    # object was read as a callable instance, its `__call__` as the user's code
    from vmap_reference import assert_same_tree, loop_vmap
    rng = np.random.default_rng(case)
    m, v = rng.normal(size=(3, 4)), rng.normal(size=(4, 3))
    f, levels, args, kwargs = [       # levels: (in_axes, out_axes), the innermost first
        (vbranchy, [(0, 0)], (m, m[::-1]), {}),
        (vbranchy, [((1, None), -1)], (m, m[0, :3]), {}),
        (vbranchy, [((0, 0), 0), ((1, 0), 1)], (rng.normal(size=(2, 3, 4)),
                                                rng.normal(size=(3, 2, 4))), {}),
        (vectorize(two_out), [((0, None), 0)], (m, v[:, 0]), {"s": 0.5}),
        (vectorize(two_out, otypes=[np.float32, bool]), [((1, 0), 0)], (m, v), {}),
        (vcore, [(0, 0), ((1, 0), 0)], (rng.normal(size=(2, 5, 3)), rng.normal(size=(5, 2, 3))),
         {}),
        (vbranchy, [(0, -1)], (m[:, 0], m[:, 1]), {}),
    ][case]
    mapped, reference = f, np.vectorize(f.pyfunc, otypes=f.otypes, signature=f.signature)
    for in_axes, out_axes in levels:
        mapped = vmap(mapped, in_axes=in_axes, out_axes=out_axes)
        reference = loop_vmap(reference, in_axes=in_axes, out_axes=out_axes)
    assert_same_tree(mapped(*args, **kwargs), reference(*args, **kwargs))


@pytest.mark.parametrize("f", [calls_vectorized, calls_vectorized_on_rows])
def test_a_vectorize_object_called_inside_a_mapped_function(f):
    # was refused ("`vbranchy` has no batching rule")
    from vmap_reference import assert_same_tree, loop_vmap
    m = np.random.default_rng(0).normal(size=(5, 3))
    if f is calls_vectorized:
        x, y = m[:, 0], m[:, 1]
        assert_same_tree(vmap(f, fallback="error")(x, y), loop_vmap(f)(x, y))
        _as_numpy_vectorize(f, (x, y))
    else:
        assert_same_tree(vmap(f, fallback="error")(m), loop_vmap(f)(m))


# ---------- vmap(backend="torch") on NumPy arrays: the loop it replays is over NumPy scalars
def int_remainder(x, y):
    v0 = x % y
    return max(v0, x) - min(v0 * 1.0, 1e-3)


def int_floor_division(x, y):
    return x // y + y


@pytest.mark.parametrize("f", [int_remainder, int_floor_division])
def test_torch_vmap_on_numpy_arrays_replays_the_numpy_scalar_loop(f):
    # was PyTorch's RuntimeError("ZeroDivisionError") from a replay over torch scalars, where
    # the reference loop (NumPy scalars) gives 0 with a RuntimeWarning
    pytest.importorskip("torch")
    x = np.array([7, -3, 5, 0, 9])
    y = np.array([2, 0, -4, 3, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = np.stack([f(a, b) for a, b in zip(x, y)])
        got = vmap(f, backend="torch")(x, y)
    assert type(got) is np.ndarray
    _same(got, expected)


# ------------------------------- `*` of an excluded Python list: Python repeats the list
def product(a, b):
    return a * b


@pytest.mark.parametrize("sequence", [[1.0], (1.0, 2.0)], ids=["list", "tuple"])
@pytest.mark.parametrize("x", [np.array([True, False]), np.array([1, 2])],
                         ids=["bool", "int"])
def test_a_python_sequence_times_per_example_ints_is_refused(sequence, x):
    # was multiplied item by item ([[1.], [0.]] for bools, where numpy.vectorize raises
    # TypeError, and (1., nan) pairs for a tuple times ints): Python repeats the sequence
    with pytest.raises(VectorizeError, match="repeats or concatenates"):
        vectorize(product, excluded={0}, fallback="error")(sequence, x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected, exc = _outcome(lambda: np.vectorize(product, excluded={0})(sequence, x))
        got, got_exc = _outcome(lambda: vectorize(product, excluded={0})(sequence, x))
    if exc is not None:
        assert type(got_exc) is type(exc)
    else:
        assert all(np.array_equal(g, e, equal_nan=True) for g, e in zip(got, expected))


# ---------------------- nested vmap whose inner level maps nothing and gives axis_size
def doubled_plus(x, y):
    return x * 2 + y


@pytest.mark.parametrize("out_axes", [0, 1, -1])
def test_nested_vmap_with_an_unmapped_level_of_axis_size(out_axes):
    # was refused ("vmap must have at least one non-None value in in_axes"), where jax.vmap
    # gives every inner example the same result, axis_size of them
    from vmap_reference import assert_same_tree
    x, y = np.arange(6.0).reshape(2, 3), np.ones(3)
    inner = vmap(doubled_plus, in_axes=(None, None), axis_size=4)
    got = vmap(inner, in_axes=(0, None), out_axes=out_axes)(x, y)
    per_outer = [np.stack([doubled_plus(row, y)] * 4) for row in x]
    assert_same_tree(got, np.moveaxis(np.stack(per_outer), 0, out_axes))
    with pytest.raises(ValueError, match="axis_size=5"):
        vmap(vmap(doubled_plus, in_axes=(0, None), axis_size=5), in_axes=(0, None))(x, y)


# -------------------- backend="torch" on NumPy ints with Python floats: NumPy's float64
def halved_int(x):
    return x * 0.5 + x / 3


def root_of_int(x):
    return x ** 0.5 + math.sqrt(x)


@pytest.mark.parametrize("f", [halved_int, root_of_int])
@pytest.mark.parametrize("dtype", [np.int64, np.uint8, np.bool_])
def test_torch_backend_on_numpy_ints_promotes_as_numpy(f, dtype):
    # was float32 (PyTorch's default dtype for an int tensor with a Python float), where
    # numpy.vectorize and the loop over NumPy scalars give float64
    torch = pytest.importorskip("torch")
    x = np.arange(1, 6).astype(dtype)
    default = torch.get_default_dtype()
    for got, expected in ((vectorize(f, backend="torch")(x), np.vectorize(f)(x)),
                          (vmap(f, backend="torch")(x), np.stack([f(v) for v in x]))):
        assert got.dtype == expected.dtype
        np.testing.assert_allclose(got, expected, rtol=1e-13)
    assert torch.get_default_dtype() == default     # restored
    assert "float32" not in vectorize(f, backend="torch").source(x)


# --------------------- a complex number the same for every example: still a Python complex
def positive_z(z):
    return z > 0


def smaller_z(z):
    return min(z, 2)


def scaled_z(z, w):
    return abs(z * w) + (z / w).real


@pytest.mark.parametrize("f", [positive_z, smaller_z])
@pytest.mark.parametrize("z", [1 + 2j, np.array(1 + 2j), np.array([1 + 2j])],
                         ids=["python", "0d", "1-item"])
def test_complex_order_of_a_shared_complex_raises_as_numpy_vectorize(f, z):
    # was NumPy's lexicographic order (True, or 1+1j from min), where each example gets a
    # Python complex, which has no order: TypeError
    expected, exc = _outcome(lambda: np.vectorize(f)(z))
    got, got_exc = _outcome(lambda: vectorize(f)(z))
    assert exc is not None and type(got_exc) is type(exc), (got, got_exc)


def test_shared_complex_arithmetic_still_vectorizes():
    w = np.array([1.0, -2.0, 0.5])
    for z in (1 + 2j, np.array(3 - 1j)):
        for _ in range(2):      # the warm call too
            _as_numpy_vectorize(scaled_z, (z, w))


def rounded_to(x, n):
    return round(x, n)


def as_text(x):
    return x / 2


def test_round_of_a_bool_with_ndigits_and_0d_string_otypes():
    # round(b, n) of bools was computed (floats), where numpy.bool has no __round__
    # (numpy.vectorize's first call raises TypeError); a 0-d call with a string otype was
    # sized by its text (<U4), where numpy.vectorize converts the one Python number (<U32)
    with pytest.raises(VectorizeError, match="__round__"):
        vectorize(rounded_to, fallback="error")(np.array([True, False]), 1)
    for x in (np.array(1.5), np.array(3), np.array(1 + 2j), np.array(True)):
        for otype in ("U", "S"):
            _as_numpy_vectorize(as_text if x.dtype.kind != "b" else positive_z, (x,),
                                otypes=[otype])


# ------------------------ NumPy-only attributes of the Python numbers numpy.vectorize hands
def rank_of(x):
    return x.ndim


def dtype_name(x):
    return str(x.dtype)


def summed_scalar(x):
    return x.sum() + 1


def integral(x):
    return x.is_integer()


def rank_of_sine(x):
    return np.sin(x).ndim + x


def plus_rank(x, p):
    return x + p.ndim


@pytest.mark.parametrize("f", [rank_of, dtype_name, summed_scalar, integral])
@pytest.mark.parametrize("x", [np.array([1.5, 2.0]), np.array([1, 2]), np.array(3), 2.0, 7,
                               np.array([True, False])],
                         ids=["float", "int", "0d-int", "python-float", "python-int", "bool"])
def test_numpy_attributes_of_python_numbers_raise_as_numpy_vectorize(f, x):
    # were the batch's answers (`x.ndim - 1`, the array's dtype, a 0-d call's NumPy scalar's
    # `.is_integer()`...), where numpy.vectorize hands each example as a Python number, which
    # has no such attribute: AttributeError (Python < 3.12: an int's `is_integer` too)
    expected, exc = _outcome(lambda: np.vectorize(f)(x))
    got, got_exc = _outcome(lambda: vectorize(f)(x))
    if exc is None:     # (a float's is_integer)
        _same(got, expected)
        return
    assert type(got_exc) is type(exc), (got, got_exc)
    # vectorized too (the batch raises where an example gets to the attribute), or refused
    # (a method without a batching rule)
    with pytest.raises((type(exc), VectorizeError)):
        vectorize(f, fallback="error")(x)


def test_numpy_attributes_of_numpy_values_still_vectorize():
    # a NumPy function's result, a NumPy scalar argument and an excluded one keep theirs
    x = np.linspace(-1.0, 1.0, 5)
    _as_numpy_vectorize(rank_of_sine, (x,))
    _as_numpy_vectorize(dtype_name, (np.float32(2.0),))
    _as_numpy_vectorize(plus_rank, (x, np.float64(2.0)))
    _as_numpy_vectorize(plus_rank, (x, np.ones(3)), excluded={1})


# ------------------------------------------------------- a call that maps no argument
def total(p):
    return sum(p)


def scaled_by(x, p=2):
    return x * p


def no_argument():
    return 1


@pytest.mark.parametrize("make,call", [
    (lambda v: v(no_argument), lambda f: f()),
    (lambda v: v(total, excluded={0}), lambda f: f([1, 2])),
    (lambda v: v(total, excluded={"p"}), lambda f: f(p=[1.5, 2])),
    (lambda v: v(scaled_by, excluded={0, "p"}, otypes=[float]), lambda f: f(3, p=2)),
])
def test_a_call_mapping_no_argument_returns_the_result_as_it_is(make, call):
    # was a 0-d array (cast to otypes); numpy.vectorize calls the function once and returns
    # its result unconverted when no argument is mapped (none given, or all excluded)
    expected = call(make(np.vectorize))
    got = call(make(functools.partial(vectorize, fallback="error")))
    assert type(got) is type(expected) and got == expected


# --------------------------------- a function with `assert` in a pytest-rewritten module
def checked_half(x):
    assert np.ndim(x) == 0, "one example at a time"
    return x / 2


def test_an_assert_rewritten_by_pytest_is_still_the_functions_source():
    # was refused ("the source ... is not the code it runs"): pytest compiles this module's
    # asserts to its own checks, which the text compiled alone does not give
    x = np.linspace(0.0, 3.0, 7)
    got = vectorize(checked_half, fallback="error")(x)
    _same(got, np.vectorize(checked_half)(x))


# --------------------------------------------------- ndarray subclasses and masked arrays
class Subclass(np.ndarray):
    pass


def branchy(x, y):
    if x > 0:
        return x * y
    return -x


def pair_of(x, y):
    return x + y, x * y


@pytest.mark.parametrize("n", [1, 5])
@pytest.mark.parametrize("f", [branchy, pair_of])
def test_subclass_and_masked_arguments_give_numpy_vectorizes_types_and_masks(f, n):
    # a masked argument's mask was dropped (a plain array where np.where made it), or its
    # masked lanes held the masked array's own arithmetic's data; a subclass argument gave a
    # plain array: numpy.vectorize's outputs are what its ufunc over the arguments gives
    x = np.linspace(-1.0, 2.0, n)
    y = np.arange(n) + 0.5
    cases = [(np.ma.array(x, mask=np.arange(n) % 2 == 1), y),
             (np.ma.array(x, mask=np.arange(n) % 2 == 0), np.ma.array(y)),
             (x.view(Subclass), y), (x, y.view(Subclass)),
             (np.ma.array(x[:1], mask=[True]).reshape(()), 2.0),
             (np.ma.array(x), np.ma.array(y[:, None], mask=(np.arange(n) < 2)[:, None]))]
    for args in cases:
        expected = np.vectorize(f)(*args)
        for _ in range(2):     # the warm call too
            got = vectorize(f, fallback="error")(*args)
            for g, e in zip(got, expected) if isinstance(expected, tuple) else [(got, expected)]:
                assert type(g) is type(e), (args, g, e)
                np.testing.assert_array_equal(np.ma.getmaskarray(g), np.ma.getmaskarray(e))
                if e is not np.ma.masked:
                    _same(np.ma.getdata(g), np.ma.getdata(e))


def test_an_excluded_masked_argument_runs_numpy_vectorizes_loop():
    x, p = np.arange(3.0), np.ma.array([1.0, 2.0], mask=[0, 1])
    with pytest.raises(VectorizeError, match="subclass"):
        vectorize(plus_rank, excluded={1}, fallback="error")(x, p)
    got = vectorize(plus_rank, excluded={1}, fallback="loop")(x, p)
    _same(got, np.vectorize(plus_rank, excluded={1})(x, p))


def row_mean(a):
    return a.mean()


def test_a_masked_argument_cut_by_a_signature_runs_numpy_vectorizes_loop():
    # was a masked array of the means, where numpy.vectorize's outputs are arrays of the
    # first example's result type (a plain array here)
    m = np.ma.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], mask=[[0, 1, 0], [0, 0, 0]])
    with pytest.raises(VectorizeError, match="masked array"):
        vectorize(row_mean, signature="(n)->()", fallback="error")(m)
    got = vectorize(row_mean, signature="(n)->()", fallback="loop")(m)
    expected = np.vectorize(row_mean, signature="(n)->()")(m)
    assert type(got) is type(expected)
    _same(got, expected)
    sub = np.arange(6.0).reshape(2, 3).view(Subclass)       # a subclass's examples: vectorized
    assert type(vectorize(row_mean, signature="(n)->()", fallback="error")(sub)) is type(
        np.vectorize(row_mean, signature="(n)->()")(sub))


# ------------------------------------------------------------------ side effects (pinned)
CALLS: list = []
COUNT = 0


def appends_its_example(x):
    CALLS.append(x)
    return x * 2


def prints_its_example(x):
    print("example", x)
    return x + 1


def counts_globally(x):
    global COUNT
    COUNT += 1
    return x - 1


def appends_a_constant(x):
    CALLS.append("called")
    return x * 2


@pytest.mark.parametrize("f", [appends_its_example, prints_its_example, counts_globally])
def test_side_effects_per_example_are_refused_or_numpy_vectorizes(f, capsys):
    # a side effect on per-example values is a located refusal; with fallbacks allowed the
    # function runs per example as numpy.vectorize runs it: once per example and once more
    # on the first to learn the output types (docs/semantics.md, the divergence table)
    global COUNT
    x = np.arange(4.0)
    with pytest.raises(VectorizeError, match="side effect|global"):
        vectorize(f, fallback="error")(x)
    outcomes = []
    for run in (np.vectorize(f), vectorize(f, fallback="loop")):
        CALLS.clear()
        COUNT = 0
        capsys.readouterr()
        result = run(x)
        outcomes.append((result.tolist(), [float(c) for c in CALLS], COUNT,
                         capsys.readouterr().out))
    assert outcomes[0] == outcomes[1]


def test_side_effects_on_shared_values_happen_per_call_not_per_example():
    # the documented divergence: once per batched call (twice where vectorize learns the
    # output types from a call on the first example, as numpy.vectorize's extra call)
    for x, calls in ((np.arange(5.0), 1), (np.arange(5, dtype=np.int8), 2)):
        CALLS.clear()
        vectorize(appends_a_constant, fallback="error")(x)
        assert CALLS == ["called"] * calls


# --------------------------------------- a call whose arguments are all 0-d or Python numbers
def minus_shared(a, b, c):
    return a * b - c


def one_item(x):
    return (x,)


def joined(x):
    return (x,) + (1.0,)


def its_shape(x):
    return np.shape(x)


@pytest.mark.parametrize("args,options", [
    ((np.array(1, np.uint8), np.array(253, np.uint8), [1.0]), {"excluded": {2}}),
    ((2.5, 3, (1.0, 2.0)), {"excluded": {2}}),
    ((np.array(0, np.uint8), [1.0], np.array(0, np.uint8)), {"excluded": {1}}),
    ((np.array([1.0, 2.0]), 3, [1.0]), {"excluded": {2}}),
])
def test_python_sequence_arithmetic_with_python_numbers_raises_as_numpy_vectorize(args,
                                                                                  options):
    # with every mapped argument 0-d the code ran as written on NumPy scalars, for which
    # `np.uint8(1) * 253 - [1.0]` is array arithmetic; per example it is a Python int minus
    # a list: TypeError (found by benchmarks/fuzz_options.py, seeds 10365, 11515)
    _, exc = _outcome(lambda: np.vectorize(minus_shared, **options)(*args))
    got, got_exc = _outcome(lambda: vectorize(minus_shared, **options)(*args))
    assert type(exc) is TypeError and type(got_exc) is TypeError, (got, got_exc)
    with pytest.raises(VectorizeError, match="list or tuple"):
        vectorize(minus_shared, fallback="error", **options)(*args)


@pytest.mark.parametrize("f", [one_item, joined, its_shape])
@pytest.mark.parametrize("x", [np.arange(3.0), 2.0, np.array(2.0)], ids=["1d", "python", "0d"])
def test_returned_tuples_are_numpy_vectorizes_outputs(f, x):
    # `return (x,)` gave one output where numpy.vectorize raises storing the tuple; a tuple
    # made by `+` in a 0-d call was one array output, not one output per item; np.shape of
    # a per-example number (an empty tuple: no output) was an array of shape (n, 0)
    expected, exc = _outcome(lambda: np.vectorize(f)(x))
    got, got_exc = _outcome(lambda: vectorize(f)(x))
    if exc is not None:
        assert type(got_exc) is type(exc), (got, got_exc)
        with pytest.raises(VectorizeError):
            vectorize(f, fallback="error")(x)
    else:
        assert got_exc is None and type(got) is type(expected) and len(got) == len(expected)
        for g, e in zip(got, expected):
            _same(g, e)


# ---------------------- np.f(a, out=y) refuses a cast to another kind (hunt4)
def out_float_into_int(x):
    y = np.zeros(1, dtype=np.int64)
    np.add(x, 0.5, out=y)
    return y[0]


def out_sqrt_into_int(x):
    y = np.zeros(1, dtype=np.int64)
    np.sqrt(x, y)
    return y[0]


def out_int_into_bool(x):
    y = np.zeros(1, dtype=bool)
    np.add(x, 1, out=y)
    return y[0]


def out_same_kind(x):
    y = np.zeros(1, dtype=np.float32)
    np.multiply(x, 3, out=y)
    return y[0]


@pytest.mark.parametrize("f", [out_float_into_int, out_sqrt_into_int, out_int_into_bool])
def test_ufunc_out_of_another_kind_is_refused_not_cast(f):
    # was y[...] = np.f(x): the float result cast into the int (bool) array, where NumPy's
    # out= raises UFuncTypeError for every example
    x = np.array([1, 4, -2, 7])
    _, raised = _numpy_vectorize(f, x)
    assert isinstance(raised, TypeError)
    with pytest.raises(VectorizeError, match="out=y"):
        vectorize(f, fallback="error")(x)
    with pytest.raises(VectorizeError, match="out=y"):
        vmap(f, fallback="error")(x)
    with pytest.warns(Warning), pytest.raises(type(raised)):
        vectorize(f)(x)


@pytest.mark.parametrize("n", [0, 1, 5])
def test_ufunc_out_of_the_same_kind_still_writes(n):
    x = np.array([1.5, -2.0, 0.25, 7.0, -0.0][:n])
    got = vectorize(out_same_kind, fallback="error")(x)
    if n:
        _same(got, _numpy_vectorize(out_same_kind, x)[0])
    else:
        assert got.shape == (0,) and got.dtype == np.float32


# ------------- a per-example array written into a slice of an int array casts (hunt4)
def slice_of_floats_into_ints(x):
    y = np.zeros(3, dtype=np.int64)
    y[:] = x * 1.5
    return y


def ellipsis_of_floats_into_ints(x):
    y = np.zeros(3, dtype=np.int32)
    y[...] = np.sqrt(np.abs(x))
    return y


@pytest.mark.parametrize("f", [slice_of_floats_into_ints, ellipsis_of_floats_into_ints])
@pytest.mark.parametrize("n", [0, 1, 5])
def test_a_row_written_into_an_int_slice_casts_as_numpy(f, n):
    # was refused at the def line ("the truth value of a per-example array is ambiguous"):
    # the OverflowError check of a float written into an int item was made for a row
    x = np.arange(3.0 * n).reshape(n, 3) - 4.25
    got = vmap(f, fallback="error")(x)
    expected = np.stack([f(row) for row in x]) if n else np.zeros((0, 3), got.dtype)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


# ------------- PyTorch: math.f of an example outside its domain is not a refusal (hunt4)
def sqrt_of_negated(x):
    return math.sqrt(-x)


def sqrt_either_sign(x):
    if x < 0:
        return math.sqrt(-x)
    return math.sqrt(x)


def exp_of_scaled(x):
    return math.exp(x * 1000.0)


def log_in_handler(x):
    try:
        y = math.log(x)
    except ValueError:
        try:
            y = math.sqrt(-x)
        except ValueError:
            y = 0.0
    return y


@pytest.mark.parametrize("f", [sqrt_of_negated, sqrt_either_sign, exp_of_scaled,
                               log_in_handler])
@pytest.mark.parametrize("values", [[-4.0, -0.25, -0.0], [2.0, -1.0, 0.5], [0.0, 9.0]])
def test_torch_math_of_an_example_outside_the_domain_runs_as_the_loop(f, values):
    # was refused ("math.sqrt raises for batched float64 in the per-example code"): the
    # rule ran math.sqrt on the analysis' example (-1 for x = 1); math.exp raised its
    # OverflowError out of the engine
    torch = pytest.importorskip("torch")
    x = torch.tensor(values, dtype=torch.float64)
    try:
        expected, raised = torch.tensor([float(f(v)) for v in x], dtype=torch.float64), None
    except (ValueError, OverflowError) as exc:
        expected, raised = None, exc
    if raised is not None:
        with pytest.raises(type(raised)):
            vmap(f, fallback="error")(x)
        return
    got = vmap(f, fallback="error")(x)
    np.testing.assert_array_equal(got.numpy(), expected.numpy())
    np.testing.assert_array_equal(np.signbit(got.numpy()), np.signbit(expected.numpy()))


# ------------------------ a refusal inside a nested try points at the user's try (hunt4)
def try_in_try(x):
    try:
        try:
            y = math.log(x)
        except ValueError:
            y = 0.0
            while y < x + 3.0:
                y += 1.0
    except ZeroDivisionError:
        y = 99.0
    return y


def test_a_refused_nested_try_is_located_at_the_inner_try():
    # was located at the def line: the inner try, lowered first, had no position (its
    # handler's `while`, copied into the lowered `if`, is what the outer `try` refuses)
    with pytest.raises(VectorizeError) as info:
        vectorize(try_in_try, fallback="error")(np.array([1.0, -1.0]))
    first_line = try_in_try.__code__.co_firstlineno
    assert f":{first_line + 2}:9:" in str(info.value)


# ------- a list written into under a backend with no list arrays: refused where written (hunt4)
def list_item_updated(x):
    out = [x, 2 * x]
    out[0] += 1.0
    return out[0] + out[1]


def list_item_written(x):
    out = [x, 2 * x]
    out[0] = x + 1.0
    return out[0] + out[1]


@pytest.mark.parametrize("f", [list_item_updated, list_item_written])
def test_a_list_write_without_list_arrays_is_refused_in_the_users_code(f):
    # was refused at vectorize/rules/lists.py:33 (np.array of the engine's __list_array__
    # helper, which PyTorch has no rule for): the list stays a list there
    torch = pytest.importorskip("torch")
    with pytest.raises(VectorizeError, match="no array of a list's items") as info:
        vmap(f, fallback="error")(torch.tensor([1.0, 2.0]))
    assert __file__ in str(info.value) and "rules" not in str(info.value).splitlines()[0]
    x = np.array([1.0, -2.0, np.nan])
    _same(vmap(f, fallback="error")(x), np.stack([f(v) for v in x]))


# ------------- a bool index of a list's items is 0 or 1, not a mask (hunt4)
def list_item_at_a_bool(x, y):
    vals = [x, y]
    vals[x > 0] = 2.0
    return vals[0] + vals[1]


def test_a_bool_index_into_a_list_is_not_a_masked_write():
    # was np.copyto(vals, 2.0, where=x > 0): both items written (4.0 where Python gives 3.0)
    x, y = np.array([1.0, -1.0, 0.5]), np.array([1.0, 5.0, 0.0])
    with pytest.raises(VectorizeError, match="not an int"):
        vectorize(list_item_at_a_bool, fallback="error")(x, y)
    with pytest.raises(VectorizeError, match="not an int"):
        vmap(list_item_at_a_bool, fallback="error")(x, y)
    # numpy.vectorize's first call hands NumPy scalars: a NumPy bool is no list index
    _, raised = _numpy_vectorize(list_item_at_a_bool, x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(type(raised)):
            vectorize(list_item_at_a_bool)(x, y)


# ----- appended lists: their truth, and loops over enumerate/zip of constants (hunt4)
def last_or_default(x):
    out = []
    for i in range(4):
        if x > i:
            out.append(x - i)
    return out[-1] if out else -1.0


def none_appended(x):
    out = []
    for i in range(3):
        if x > 2 * i:
            out.append(x + i)
    if not out:
        return -0.0
    return max(out)


def appended_over_enumerate(x):
    out = []
    for i, c in enumerate((1.0, 2.0, 3.0)):
        if x > c:
            out.append(c * i - x)
    return len(out) + sum(out) + (out[-1] if out else 0.5)


def appended_over_zip(x):
    out = []
    for a, b in zip((1.0, 2.0, 3.0), range(5)):
        if x > a:
            out.append(a * b + x)
    return len(out) + (out[0] if out else 0.5)


@pytest.mark.parametrize("f", [last_or_default, none_appended, appended_over_enumerate,
                               appended_over_zip])
@pytest.mark.parametrize("n", [0, 1, 5, 9])
def test_appended_lists_read_for_their_truth_and_over_enumerate_or_zip(f, n):
    # were refused ('a call whose result is thrown away', 'a loop whose number of
    # iterations may differ per example'): `if out` is out_len > 0, enumerate/zip of a
    # display run as many times on every example
    x = np.array([0.5, 2.5, -1.0, 3.5, np.nan, 1.0, -0.0, np.inf, 4.0])[:n]
    got = vectorize(f, fallback="error")(x)
    if n == 0:
        assert got.shape == (0,)
    else:
        _same(got, _numpy_vectorize(f, x)[0])
    lanes = vmap(f, fallback="error")(x)
    if n:
        np.testing.assert_array_equal(lanes, np.array([f(v) for v in x], dtype=lanes.dtype))


# ------- try: a NumPy scalar divides by zero without raising, in vectorize too (hunt4)
def divides_an_item_of_zeros(y):
    w = np.zeros(2)
    v = w[0] * y
    try:
        r = 1.0 / v
    except ZeroDivisionError:
        r = 10.0
    return r


def divides_a_masked_item(y):
    w = np.zeros(2)
    w[y > 0] = y * 1.0
    v = w[0] - w[1] * 3.0
    try:
        r = 1.0 / v
    except ZeroDivisionError:
        r = 10.0
    return r


def divides_a_python_number(y):
    v = float(y) * 0.0
    try:
        r = 1.0 / v
    except ZeroDivisionError:
        r = 10.0
    return r


@pytest.mark.parametrize("f", [divides_an_item_of_zeros, divides_a_masked_item,
                               divides_a_python_number])
@pytest.mark.parametrize("n", [1, 5])
def test_a_numpy_scalar_divided_by_zero_takes_no_handler(f, n):
    # was the handler's 10.0 for every example (the try lowering took every operand of
    # vectorize's code for a Python number): np.float64 / 0 is inf with a warning
    y = np.array([1.5, -2.0, 0.0, -0.0, np.nan])[:n]
    got = vectorize(f, fallback="error")(y)
    _same(got, _numpy_vectorize(f, y)[0])
    with np.errstate(all="ignore"):
        expected = np.array([f(v) for v in y])
    np.testing.assert_array_equal(vmap(f, fallback="error")(y), expected)


def log_in_base(x, b):
    return math.log(x, b)


def test_torch_math_log_of_a_base_one_example_runs_as_the_loop():
    # was a ZeroDivisionError inside the engine (the rule's inference ran math.log on the
    # analysis' example, base 1.0); TORCH_BUGS in test_rules_torch listed it
    torch = pytest.importorskip("torch")
    x = torch.tensor([8.0, 0.5, 100.0], dtype=torch.float64)
    b = torch.tensor([2.0, 4.0, 10.0], dtype=torch.float64)
    got = vmap(log_in_base, fallback="error")(x, b)
    np.testing.assert_array_equal(got.numpy(), [log_in_base(u, v) for u, v in zip(x, b)])
    with pytest.raises(ZeroDivisionError):
        vmap(log_in_base, fallback="error")(x, torch.tensor([2.0, 1.0, 3.0],
                                                             dtype=torch.float64))


# ---- tables and appended lists at a per-example index of a narrow int or a bool (hunt4)
def per_branch_table_at(x, k):
    if x > 0:
        t = (1.0, 2.0, 3.0)
    else:
        t = (5.0, 6.0)
    return t[k]


def appended_at(x, k):
    out = []
    for i in range(4):
        if x > i:
            out.append(x + i)
    return out[k]


@pytest.mark.parametrize("f", [per_branch_table_at, appended_at])
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, bool])
def test_a_table_at_a_narrow_int_or_bool_index_is_the_loops(f, dtype):
    # narrow ints: were refused ('the list holds Python numbers, which keep the type of the
    # int8 values...'): a float item stays float64 whatever int it meets; bools: vmap read
    # item 0 or 1 where the loop's NumPy bool is no index (TypeError): refused, located
    x = np.array([1.0, -1.0, 2.5, -3.0, 3.5])
    k = np.array([0, 1, 1, 0, 1]) if dtype is bool else np.array([0, -1, 1, -2, 2])
    k = k.astype(dtype)
    if dtype is bool:
        with pytest.raises(VectorizeError, match="a bool, not an int"):
            vmap(f, fallback="error")(x, k)
        return
    try:
        expected, raised = np.stack([f(a, b) for a, b in zip(x, k)]), None
    except IndexError as exc:
        expected, raised = None, exc
    if raised is not None:
        with pytest.raises(IndexError):
            vmap(f, fallback="error")(x, k)
    else:
        _same(vmap(f, fallback="error")(x, k), expected)


# ------------------------------------- a merge with a number its other side's dtype cannot hold
def _choose_300(x, y):
    return x if x > y else 300


def _choose_big(x, y):
    return x if x > y else 2**63


def _or_300(x, y):
    return x or 300


def _statement_big(x, y):
    r = x
    if x > y:
        r = 2**63
    return r


@pytest.mark.parametrize("f, dtype", [(_choose_300, np.int8), (_or_300, np.int8),
                                      (_choose_300, np.uint8), (_choose_big, np.int64),
                                      (_statement_big, np.int64)])
def test_merge_with_a_number_the_dtype_cannot_hold_is_refused_under_vmap(f, dtype):
    # was np.where(c, x, 300) on int8: 44 (NEP 50 makes the Python int an int8, wrapped),
    # where per example the branch gives 300
    x = np.array([1, 0, -3, 5, 2]).astype(dtype)
    y = np.full(5, 2).astype(dtype)
    with pytest.raises(VectorizeError, match="cannot hold"):
        vmap(f)(x, y)


@pytest.mark.parametrize("f", [_choose_big, _statement_big])
def test_merge_with_an_int_beyond_int64_is_refused_by_vectorize(f):
    # was -2**63 where numpy.vectorize gives 2**63 (a uint64 array) or raises OverflowError
    x, y = np.array([1, 5, -3]), np.full(3, 2)
    with pytest.raises(VectorizeError, match="cannot hold"):
        vectorize(f, fallback="error")(x, y)


@pytest.mark.parametrize("first", [[1, 5, -3], [5, 1, 3]])
def test_merge_with_300_on_int8_still_follows_numpy_vectorize(first):
    # numpy.vectorize computes on Python ints: 300 is fine, the int8 output type raises
    x, y = np.array(first, dtype=np.int8), np.full(3, 2, dtype=np.int8)
    expected, error = _numpy_vectorize(_choose_300, x, y)
    if error is not None:
        with pytest.raises(type(error)):
            vectorize(_choose_300, fallback="error")(x, y)
    else:
        _same(vectorize(_choose_300, fallback="error")(x, y), expected)
    x16, y16 = x.astype(np.int16), y.astype(np.int16)
    vm = vmap(_choose_300)(x16, y16)
    # (the loop's stack of int16 lanes and a Python int 300: int64, where some lane takes it)
    loop = np.stack([_choose_300(a, b) for a, b in zip(x16, y16)])
    assert vm.dtype == loop.dtype and list(vm) == [_choose_300(a, 2) for a in first]


# ------------------------------- JAX: an index check's size is the call's, not the first call's
def _pick_twice(a, i):
    return a[i] * 2


def _take_per_example(a, i):
    return np.take(a, i)


def _table_pick(t, i):
    return t[i] + np.take(t, i)


def _pick_of_a_slice(a, i):
    return a[1:][i] + (a * 2)[i]


@pytest.mark.parametrize("f, axes", [(_pick_twice, 0), (_take_per_example, 0),
                                     (_table_pick, (None, 0)), (_pick_of_a_slice, 0)])
def test_jax_index_check_follows_the_per_example_shape_of_each_call(f, axes):
    # the specialization is kept per dtype and rank: `in_bounds(i, 4)` baked from the first
    # call's shape raised IndexError for index 5 of a second call with 6 items per example
    pytest.importorskip("jax")
    w = vmap(f, in_axes=axes, backend="jax")
    for size, top in [(4, 2), (6, 4), (6, 6), (4, 2)]:
        a = np.arange(5.0 * size).reshape(5, size) if axes == 0 else np.arange(float(size))
        i = np.array([top, 0, 1, 0, 2])
        rows = a if axes == 0 else [a] * 5
        if top >= size:
            with pytest.raises(IndexError):
                [f(x, j) for x, j in zip(rows, i)]
            with pytest.raises(IndexError):
                w(a, i)
            continue
        expected = np.stack([f(x, j) for x, j in zip(rows, i)])
        np.testing.assert_array_equal(np.asarray(w(a, i)), expected)


# hunt6
# ------------ math's domain and range checks convert the argument to a Python float first
def _exp_or_minus_one(x):
    try:
        r = math.exp(x)
    except OverflowError:
        r = -1.0
    return r


def _acos_or_minus_one(x):
    try:
        r = math.acos(x)
    except ValueError:
        r = -1.0
    return r


def _cosh(x):
    return math.cosh(x)


def _exp(x):
    return math.exp(x)


def _acos(x):
    return math.acos(x)


def _loop_outcome(f, x):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.stack([np.asarray(f(v)) for v in x]), None
    except Exception as exc:  # noqa: BLE001 -- the reference's outcome
        return None, exc


@pytest.mark.parametrize("f, x", [
    # 709.782712893384 (exp's last finite argument) is 710.0 as a float16 and 709.78271484375
    # as a float32: compared in the argument's dtype (NEP 50) the check missed these lanes
    (_exp_or_minus_one, np.array([710.0, 709.0, -3.0], np.float16)),
    (_exp_or_minus_one, np.array([709.78271484375, 709.0], np.float32)),
    (_exp, np.array([1.0, 710.0], np.float16)),
    (_exp, np.array([709.78271484375], np.float32)),
    # abs(-2**63) of int64 wraps to -2**63, so `abs(x) > 1` missed the domain error
    (_acos_or_minus_one, np.array([-2**63, 1, 2], np.int64)),
    (_acos, np.array([0, -2**63], np.int64)),
    (_cosh, np.array([0, -2**63], np.int64)),
])
def test_math_checks_convert_the_argument_to_a_float(f, x):
    expected, exc = _loop_outcome(f, x)
    if exc is not None:
        with pytest.raises(type(exc)):
            vmap(f, fallback="error")(x)
    else:
        _same(vmap(f, fallback="error")(x), expected)
    expected, exc = _numpy_vectorize(f, x)
    if exc is not None:
        with pytest.raises(type(exc)):
            vectorize(f, fallback="error")(x)
    else:
        _same(vectorize(f, fallback="error")(x), expected)


# ------------- results that are all empty strings: numpy.vectorize's conversion makes <U2
_WORDS = ("north", "", "ab")


def _word(k):
    return _WORDS[k]


def _empty_text(k):
    return str(k)[:0]


def _empty_bytes(k):
    return b"" if k > 0 else b""


@pytest.mark.parametrize("f, k, otypes", [
    (_word, np.array([1, 1]), None), (_word, np.array([1]), "U"), (_word, 1, None),
    (_word, 1, "U"), (_empty_text, np.array([3, 4]), None), (_empty_text, np.array([3]), "U"),
    (_empty_bytes, np.array([1, 2]), None)])
def test_results_that_are_all_empty_strings_are_sized_as_numpy_vectorize_sizes_them(
        f, k, otypes):
    kw = {"otypes": [otypes]} if otypes else {}
    expected = np.vectorize(f, **kw)(k)
    _same(vectorize(f, fallback="error", **kw)(k), expected)
    _same(vectorize(f, fallback="error", **kw)(np.array([0, 1, 2])),
          np.vectorize(f, **kw)(np.array([0, 1, 2])))


# ----------------------------------- 0.0 to the power -inf is inf in Python, no exception
def _power_or_minus_one(x, y):
    try:
        q = x ** y
    except ZeroDivisionError:
        q = -1.0
    return q


def _math_pow_or_minus_one(x, y):
    try:
        q = math.pow(x, y)
    except ValueError:
        q = -1.0
    return q


def _builtin_pow_or_minus_one(x, y):
    try:
        q = pow(x, y)
    except ZeroDivisionError:
        q = -1.0
    return q


@pytest.mark.parametrize("f", [_power_or_minus_one, _math_pow_or_minus_one,
                               _builtin_pow_or_minus_one])
@pytest.mark.parametrize("x, y", [
    (np.array([0.0, -0.0, 0.0, 0.0]), np.array([-math.inf, -math.inf, math.inf, 2.0])),
    (0.0, np.array([-math.inf, 3.0, -1.0, -0.5])),
    (np.array([0.0, 0.5, -0.0]), -math.inf)])
def test_zero_to_the_power_minus_inf_is_inf(f, x, y):
    # the test was `x == 0 and y < 0`: the handler where Python's 0.0 ** -inf and
    # math.pow(0.0, -inf) are inf
    expected, exc = _numpy_vectorize(f, x, y)
    if exc is not None:
        with pytest.raises(type(exc)):
            vectorize(f, fallback="error")(x, y)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _same(vectorize(f, fallback="error")(x, y), expected)



# hunt7
# ------------ a Python number or a 0-d array is a Python number per example (numpy.vectorize)
def _round3(x):
    return round(x, 3)


def _round3_plus(x, k):
    return round(x, 3) + k


@pytest.mark.parametrize("f, args", [
    (_round3, (0.0005,)), (_round3, (2.6985,)), (_round3, (np.array(0.0005),)),
    (_round3, (np.float64(2.6985),)), (_round3, (np.array([0.0005, 2.6985]),)),
    (_round3_plus, (np.array(2.6985), True)), (_round3_plus, (2.6985, np.array(False))),
    (_round3_plus, (-0.0015, 1)), (_round3_plus, (np.float64(0.0005), 0)),
])
def test_scalar_arguments_round_as_numpy_vectorizes_examples(f, args):
    # was np.float64 per example for a Python float or a 0-d array (np.round's 0.0 and
    # 2.698), where numpy.vectorize hands a Python float (0.001, 2.699); a NumPy scalar is
    # handed on as it is (2.698 both); three calls: the first plans, the others take the
    # fast path
    expected, _ = _numpy_vectorize(f, *args)
    vectorized = vectorize(f, fallback="error")
    for _ in range(3):
        _same(vectorized(*args), expected)


# hunt9
# ------ per example numpy.vectorize hands Python bools: `True + True` is 2, not NumPy's `or`
def _count_positive(a, b, c):
    return (a > 0) + (b > 0) + (c > 0) + 0


def _count_scaled(a, b):
    n = (a > 0) + (b > 0)
    return n * 1.5


def _bool_flag_accumulated(a, b):
    flag = a > 0
    flag += b > 0
    return flag * 1.5


def _abs_of_bool_plus(x, y):
    return abs(x) + y


def _bool_difference(a, b):
    return (a > 0) - (b > 0)


def _bool_power(a, b):
    return (a > 0) ** (b > 0) + 0.5


def _nots_counted(a, b):
    return (not a) + (not b) + 0


def _abs_of_not(a, b):
    return abs(not a)


def _bools_inverted(a, b):
    return ~(a > 0) + (b > 0)


def _bool_counted_in_a_loop(a, b):
    k = a > 0
    while k < 3 and b > 0:
        k = k + (b > 0)
        b = b - 1.0
    return k


def _bool_squared(a, b):
    return bool(a) & (bool(a) ** 2)


def _numpy_bools_added(a, b):
    return np.isnan(a) + np.isnan(b)


def _mixed_bools_added(a, b):
    return (a > 0) + np.isnan(b)


_A = np.array([1.0, -1.0, 2.0, np.nan, 0.0, 3.5])
_B = np.array([1.0, 1.0, np.nan, np.nan, 3.0, -2.0])
_BOOLS = np.array([True, False, True, True, False, False])


@pytest.mark.parametrize("f, args", [
    (_count_positive, (_A, _B, _B[::-1])), (_count_scaled, (_A, _B)),
    (_bool_flag_accumulated, (_A, _B)), (_abs_of_bool_plus, (_BOOLS, _BOOLS[::-1])),
    (_bool_difference, (_A, _B)), (_bool_power, (_A, _B)),
    (_nots_counted, (_A, np.bool_(False))), (_count_scaled, (0.5, _B)),
    (_abs_of_not, (_A, _B)), (_bools_inverted, (_A, _B)),
    (_bool_counted_in_a_loop, (_A, _B)), (_bool_counted_in_a_loop, (_A[:1], _B[:1])),
    (_bool_counted_in_a_loop, (_A, 3.0)), (_bool_squared, (_A, _B)),
    # NumPy bools keep NumPy's meaning, a NumPy scalar argument makes NumPy bools
    (_numpy_bools_added, (_A, _B)), (_mixed_bools_added, (_A, _B)),
    (_bool_difference, (np.True_, _B)), (_bool_flag_accumulated, (np.True_, _B)),
])
@pytest.mark.parametrize("otypes", [None, "d"])
def test_arithmetic_on_python_bools_is_int_arithmetic(f, args, otypes):
    # `(a > 0) + (b > 0)` computed NumPy's logical or (`+` of bool arrays), where each
    # example adds the Python bools numpy.vectorize hands it (2 where both hold); the
    # result's type stays the first example's (NumPy bools there)
    kw = {"otypes": otypes} if otypes else {}
    vectorized = vectorize(f, fallback="error", **kw)
    for n in (0, 1, 5, None):
        cut = [a[:n] if np.ndim(a) and n is not None else a for a in args]
        if n == 0 and not otypes:
            continue            # (numpy.vectorize needs otypes for an empty batch)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                expected, exc = np.vectorize(f, **kw)(*cut), None
            except Exception as error:  # noqa: BLE001 -- the reference's outcome
                expected, exc = None, error
            if exc is not None:
                with pytest.raises(type(exc)):
                    vectorized(*cut)
            else:
                _same(vectorized(*cut), expected)


# --------------------- otypes with another number of entries than the function has results
def _quotient_and_remainder(x, y):
    return divmod(x, y)


def _plain_sum(x, y):
    return x + y


@pytest.mark.parametrize("f, otypes", [
    (_quotient_and_remainder, "d"), (_quotient_and_remainder, ["d"]),
    (_quotient_and_remainder, "ddd"), (_plain_sum, "dd")])
@pytest.mark.parametrize("x", [np.zeros(0), np.array([7.0, -2.5, 3.0]), 3.0])
def test_otypes_decide_the_number_of_outputs(f, otypes, x):
    # numpy.vectorize makes one output per otypes entry: a pair stored into one float output
    # raises ValueError, three outputs of a pair are NaN; the batched code returned its pair
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            expected, exc = np.vectorize(f, otypes=otypes)(x, 2.0), None
        except Exception as error:  # noqa: BLE001 -- the reference's outcome
            expected, exc = None, error
        if exc is not None:
            with pytest.raises(type(exc)):
                vectorize(f, otypes=otypes, fallback="error")(x, 2.0)
            return
        got = vectorize(f, otypes=otypes, fallback="error")(x, 2.0)
    assert type(got) is type(expected)
    for g, e in zip(got, expected) if isinstance(expected, tuple) else [(got, expected)]:
        _same(g, e)


# ------- a call on numbers only: numpy.vectorize's output type is its first (NumPy) example's
def _bools_added(x):
    return (x > 0) + (x > 1)


def _bool_power(a, b):
    return (b < 0.5) ** (a > 0)


def _bools_subtracted(x):
    return (x > 0) - (x > 1)


@pytest.mark.parametrize("f, args", [
    (_bools_added, (2.0,)), (_bools_added, (np.array(2.0),)), (_bools_added, (np.float64(2.0),)),
    (_bool_power, (-0.0, -2.5)), (_bool_power, (np.array(1.0), 3)),
    (_bools_subtracted, (2.0,)), (_bools_subtracted, (np.array(0.5),)),
    (_round3, (0.0005,)),
])
def test_calls_on_numbers_take_the_first_examples_types(f, args):
    # no argument batched, the code computed with the Python numbers (`(2.0 > 0) + (2.0 > 1)`
    # is 2, an int64): numpy.vectorize learns the type from a call on NumPy scalars
    # (`np.True_ + np.True_` is True: a bool output; `np.True_ - np.True_` raises TypeError)
    expected, exc = _numpy_vectorize(f, *args)
    vectorized = vectorize(f, fallback="error")
    for _ in range(3):
        if exc is not None:
            with pytest.raises(type(exc)):
                vectorized(*args)
        else:
            _same(vectorized(*args), expected)


# -------- a pair on one path, a number on another, chosen by a value the same for the call
def _pair_or_flag(a):
    if a:
        return a > 1
    return abs(2), a < 1


@pytest.mark.parametrize("calls", [(0,), (np.int64(0),), (np.array(0),), (3, 0, 3, 0),
                                   (np.array(5), np.array(0))])
def test_the_returned_structure_is_the_examples(calls):
    # the code's result was the first path's (one value): the pair came back as one array
    # (array([2, 1])), where numpy.vectorize returns a pair of 0-d arrays
    vectorized = vectorize(_pair_or_flag, fallback="error")
    for a in calls:
        expected, _ = _numpy_vectorize(_pair_or_flag, a)
        got = vectorized(a)
        assert type(got) is type(expected)
        for g, e in zip(got, expected) if isinstance(expected, tuple) else [(got, expected)]:
            _same(g, e)


# ----------- the file rewriter: bools counted with an explicit int(), refused without one
_CLI_SOURCE = """\
import math

import numpy as np

from vectorize import vectorize


@vectorize
def counted(a: float, b: float):
    return int(a > 0) + (b > 0) + (a < b)


@vectorize
def remainders(x: float, y: float):
    return x % y, x // y, math.fmod(x, 1.5), math.copysign(x, y)


@vectorize
def steps(x: float, n: int):
    k = 0
    while k < n:
        k += 1
        x = x * 0.5
    return x + k
"""


def test_the_file_rewriter_counts_bools_as_the_decorator(tmp_path):
    import importlib.util

    from test_cli import cli
    path = tmp_path / "bools.py"
    path.write_text(_CLI_SOURCE)
    result = cli("-w", path)
    assert result.returncode == 0, result.stderr.decode()
    spec = importlib.util.spec_from_file_location("hunt9_bools_rewritten", path)
    rewritten = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rewritten)
    original = {}
    exec(compile(_CLI_SOURCE.replace("@vectorize\n", ""), "hunt9_bools", "exec"), original)
    a = np.array([1.0, -1.0, 2.0, np.nan, -0.0, 3.5])
    b = np.array([1.0, 1.0, -7.0, np.nan, 3.0, -2.0])
    n = np.array([0, 3, 1, 2, 5, 0])
    for name, args in (("counted", (a, b)), ("remainders", (a, b)), ("steps", (a, n))):
        expected, _ = _numpy_vectorize(original[name], *args)
        got = getattr(rewritten, name)(*args)
        for g, e in zip(got, expected) if isinstance(expected, tuple) else [(got, expected)]:
            _same(g, e)
    # without the int(): numpy.vectorize's type is its first call's on NumPy bools
    import io

    from vectorize.cli import main
    path.write_text(_CLI_SOURCE.replace("int(a > 0)", "(a > 0)"))
    out, err = io.StringIO(), io.StringIO()
    assert main([str(path)], out=out, err=err) != 0
    assert "per-example bools as numbers" in err.getvalue()
    assert "bools.py:9:1" in err.getvalue()


# ------ narrow dtypes: a number the same for every example chooses the path, and the type
def _flag_or_value(a, b):
    if b:
        return a > 0
    return a


@pytest.mark.parametrize("a, bs", [
    (np.array([1, -3, 0], np.int8), (0, 2, np.array(0), np.array(3))),
    (np.array([1.5, -3.0], np.float32), (1.0, 0.0, 1.0)),
    (np.array([7, 0], np.uint32), (0, 1, np.int64(0))),
])
def test_the_type_a_shared_number_chooses_is_learned_on_every_call(a, bs):
    # the output type learned on the first call (the dtypes the same) was kept for the next,
    # where the shared number took the other path: int8 where numpy.vectorize gives bool
    vectorized = vectorize(_flag_or_value, fallback="error")
    for b in bs:
        expected, _ = _numpy_vectorize(_flag_or_value, a, b)
        _same(vectorized(a, b), expected)


# hunt8
# ---------- math.floor / math.ceil of a NumPy int64 round its float() (no __floor__ on it)
def _h8_loop(f, *args):
    """The per-example loop over NumPy scalars, stacked as `vmap`'s reference stacks it."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return np.stack([np.asarray(f(*[a[i] for a in args])) for i in range(len(args[0]))])


def _h8_floor(n):
    return math.floor(n)


def _h8_ceil_or_floor(n):
    return math.ceil(n) * 2 if n < 0 else math.floor(n + 1) - 1


def _h8_floor_of_int(n):
    return math.floor(int(n))


_H8_I64 = np.iinfo(np.int64)


@pytest.mark.parametrize("f", [_h8_floor, _h8_ceil_or_floor, _h8_floor_of_int])
@pytest.mark.parametrize("x", [
    np.array([2 ** 53 + 1, -2 ** 53 - 1, 3, _H8_I64.max - 600, _H8_I64.min + 5]),
    np.array([_H8_I64.max, 7]), np.array([2 ** 63 - 1, 2 ** 53 + 1], dtype=np.uint64),
    np.array([2 ** 64 - 1, 1], dtype=np.uint64), np.array([-128, 127], dtype=np.int8),
])
def test_math_floor_of_numpy_int64_rounds_its_float(f, x):
    # was the int64 itself (2**53 + 1): a NumPy int64 / uint64 has no `__floor__` or
    # `__ceil__`, so math.floor rounds `float(n)` per example (2**53), and from 2**63 - 512
    # on that is 2**63, beyond int64 (the loop's stacking: uint64, float64 or object);
    # `math.floor(int(n))` stays exact, and numpy.vectorize's Python ints too
    expected = _h8_loop(f, x)
    for _ in range(2):
        _same(vmap(f)(x), expected)
    _same(vmap(vmap(f))(x[None]), expected[None])
    reference, exc = _numpy_vectorize(f, x)
    if exc is None:
        # (values only: numpy.vectorize learns its output type from math.floor of the first
        # NumPy int64, uint64 where that is 2**63 - 1, then stores the exact Python ints)
        np.testing.assert_array_equal(vectorize(f, fallback="error")(x), reference)


def test_math_floor_of_int64_tensor_rounds_its_float():
    # the same on PyTorch: a tensor has no `__floor__`, math.floor rounds its float()
    torch = pytest.importorskip("torch")
    x = torch.tensor([2 ** 53 + 1, -2 ** 53 - 1, 3])
    expected = torch.tensor([math.floor(v) for v in x])
    assert torch.equal(vmap(_h8_floor, backend="torch")(x), expected)


# ---------- a string result is as wide as its longest item (the loop's stacking), every call
def _h8_pos(n):
    return "pos" if n > 0 else "n"


def _h8_labelled(n):
    return "v=" + str(n) if n > 0 else "none"


def _h8_pair(n):
    return ("pos" if n > 0 else "", n)


@pytest.mark.parametrize("f", [_h8_pos, _h8_labelled, _h8_pair])
def test_string_results_as_wide_as_their_longest_item(f):
    # was the width of the longest string the code could give: <U3 for "n" on every lane
    # ("pos" in np.where), <U6 for "v=5" ("v=-120", a lane thrown away), first call or warm
    vmapped = vmap(f)
    for x in ([3, -120, 0, 127, 5], [-1, -2], [5], [-3, -4, -5], [-3, 8], [-7]):
        x = np.array(x, dtype=np.int8)
        got, expected = vmapped(x), _h8_loop(f, x)
        got0 = got[0] if isinstance(got, tuple) else got
        assert got0.dtype == np.stack([np.asarray(r if not isinstance(r, tuple) else r[0])
                                       for r in map(f, x)]).dtype, (x, got0)
        np.testing.assert_array_equal(got0, expected if not isinstance(got, tuple)
                                      else expected[:, 0])
    x = np.array([-1, -2], dtype=np.int8)
    nested = vmap(vmap(f))(x[None])
    nested = nested[0] if isinstance(nested, tuple) else nested
    assert nested.dtype == np.asarray(f(-1)[0] if isinstance(f(-1), tuple) else f(-1)).dtype


# ---------- `r //= 0` of a Python float every lane (or some lanes) reach raises, as the loop
def _h8_aug_every_lane(x, y):
    r = 2.0
    r //= 0
    if x > 5:
        r = y
    return r


def _h8_aug_some_lanes(x, y):
    r = 2.0
    if x > 0:
        r /= 0
    return r + y


def _h8_aug_literal_zero_product(x, y):
    r = math.sqrt(2.0)
    r %= abs(-1 - -1)
    return r * x


@pytest.mark.parametrize("f", [_h8_aug_every_lane, _h8_aug_some_lanes,
                               _h8_aug_literal_zero_product])
@pytest.mark.parametrize("x", [[-1.0, -2.0], [-1.0, 2.0, 3.0], [7.0]])
def test_augmented_python_float_division_by_zero_raises(f, x):
    # was inf (NumPy's scalar division the shared Python float became, unchecked): the
    # augmented assignment's check looked at its result, which the analysis could not
    # compute, not at the Python float it divides; `vmap` now raises ZeroDivisionError on
    # the lanes that get there, as the loop (and vectorize) do
    x = np.array(x)
    y = x + 0.5
    try:
        expected = _h8_loop(f, x, y)
    except ZeroDivisionError:
        expected = None
    for backend in ("numpy", "torch"):
        if backend == "torch":
            pytest.importorskip("torch")
        if expected is None:
            with pytest.raises(ZeroDivisionError):
                vmap(f, backend=backend)(x, y)
        else:
            np.testing.assert_array_equal(np.asarray(vmap(f, backend=backend)(x, y)),
                                          expected)


# ---------- str() / f"{r}" of a value that is an int on some lanes and a float on others
def _h8_half_or_zero(x):
    r = 0
    if x > 0:
        r = x / 2
    return f"{r}"


def _h8_labelled_half(x):
    r = 0
    if x > 0:
        r = x / 2
    return "value " + str(r)


def _h8_int_or_float_literal(x):
    r = 7
    if x > 0:
        r = 2.5
    return f"{r!s}"


def _h8_half_or_zero_g(x):
    r = 0
    if x > 0:
        r = x / 2
    return f"{r:g}|{r:.2f}"


@pytest.mark.parametrize("f", [_h8_half_or_zero, _h8_labelled_half, _h8_int_or_float_literal])
def test_formatting_a_value_of_mixed_number_kinds_is_refused(f):
    # was "0.0" on the lanes that keep the int 0 (the batch holds the joined float64; the
    # loop, and numpy.vectorize, print "0"): refused where it is formatted
    x = np.array([1.0, -2.0, 3.0])
    for api in (vmap, functools.partial(vectorize, fallback="error")):
        with pytest.raises(VectorizeError, match="different kind of number"):
            api(f)(x)


def test_float_formats_of_mixed_number_kinds_still_vectorize():
    # a float presentation type prints an int as it prints the float of it
    x = np.array([1.0, -2.0, 3.0, 0.0])
    _same(vmap(_h8_half_or_zero_g)(x), _h8_loop(_h8_half_or_zero_g, x))
    expected, _ = _numpy_vectorize(_h8_half_or_zero_g, x)
    _same(vectorize(_h8_half_or_zero_g, fallback="error")(x), expected)


# ---------- a comparison chain is a Python bool where a link compares Python numbers
def _h8_chain_divisor(x, y):
    return 300 / (x < 1e300 < 10)


def _h8_chain_named(x, y):
    d = x < y < 1.5
    return (7 // d) + x


@pytest.mark.parametrize("f", [_h8_chain_divisor, _h8_chain_named])
@pytest.mark.parametrize("x", [[1.0, -2.0, 3.0], [np.inf, np.nan], [2.0, 5.0]])
def test_chain_of_comparisons_divisor_as_the_loop(f, x):
    # was inf on every lane: `x < 1e300 < 10` is, where `x < 1e300` holds, the Python
    # False of `1e300 < 10`, and 300 / False raises ZeroDivisionError per example (lanes
    # where the first link fails hold NumPy's False: inf, as the loop gives)
    x = np.array(x)
    y = np.ones_like(x)
    try:
        expected = _h8_loop(f, x, y)
    except ZeroDivisionError:
        with pytest.raises(ZeroDivisionError):
            vmap(f)(x, y)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(vmap(f)(x, y), expected)


def _h8_sum_of_shared_count(x, n):
    s = 0
    for _ in range(n):
        s += x
    return f"{s}"


def _h8_carry_retyped(x, n):
    r = x * 1.0
    k = 0
    while k < 3:
        r = np.maximum(255, -2)
        k += 1
    return f"{r}"


def _h8_sum_of_three(x, n):
    s = 0
    for _ in range(3):
        s += x
    k = 0
    t = 0
    while k < 2:
        t = t + x * 0.5
        k += 1
    return f"{s}/{t}"


@pytest.mark.parametrize("f, works", [(_h8_sum_of_shared_count, False),
                                      (_h8_carry_retyped, False), (_h8_sum_of_three, True)])
def test_loop_carries_of_mixed_number_kinds(f, works):
    # `s = 0` carried through a loop some examples skip prints "0" there ("0.0" was the
    # batch's); a carry a loop every example runs retypes (`np.maximum(255, -2)`, an int:
    # "255", was "255.0") is refused too; one whose last pass is a float on every example
    # (a loop of 3 passes, a `while k < 2` counter) prints that float and vectorizes
    x, n = np.array([1.0, 2.5]), np.array([0, 2])
    if works:
        _same(vmap(f)(x, n), _h8_loop(f, x, n))
        return
    with pytest.raises(VectorizeError, match="different kind of number"):
        vmap(f)(x, n)


# ---------- a per-example Python int meeting a narrow NumPy int takes its type (NEP 50)
def _h8_plus_int(x, y):
    return x + int(y)


def _h8_mod_floor(x, y):
    r = 3 - math.floor(y)
    return x % r


def _h8_augmented_int(x, y):
    k = int(y)
    x += k
    return x


def _h8_scaled_int(x, y):
    return int(y) * x - 3


def _h8_ufunc_add_int(x, y):
    return np.add(x, int(y))


def _h8_ufunc_maximum_int(x, y):
    return np.maximum(int(y), x)


@pytest.mark.parametrize("f", [_h8_plus_int, _h8_mod_floor, _h8_augmented_int,
                               _h8_scaled_int, _h8_ufunc_add_int, _h8_ufunc_maximum_int])
@pytest.mark.parametrize("x, y", [
    (np.array([100, -100, 5], np.int8), np.array([100.0, -100.0, 1.0])),    # wraps in int8
    (np.array([1, 2], np.int8), np.array([300.0, 1.0])),                   # OverflowError
    (np.array([3, 2], np.uint8), np.array([-1.0, 1.0])),
    (np.array([2 ** 60 + 1, 3], np.uint64), np.array([2.0, 3.0])),         # exact uint64
    (np.array([1, 2], np.uint32), np.array([2.0 ** 33, 1.0])),
    (np.array([7, -7], np.int16), np.array([2.0, -3.0])),
])
def test_python_int_meeting_a_narrow_numpy_int_as_the_loop(f, x, y):
    # was int64 arithmetic (200 where the loop's int8 wraps to -56), no OverflowError for a
    # Python int beyond int8 / uint8 / uint32 (the loop raises), and float64 for a uint64
    # (2**60 + 3 rounded); now the Python int takes the narrow type, checked first
    try:
        expected = _h8_loop(f, x, y)
    except OverflowError:
        for backend in ("numpy", "jax"):
            if backend == "jax":
                pytest.importorskip("jax")
            with pytest.raises(OverflowError):
                vmap(f, backend=backend)(x, y)
        return
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        _same(vmap(f)(x, y), expected)
        _same(vmap(vmap(f))(x[None], y[None]), expected[None])


def _h8_ufunc_weak_float(x, y):
    return np.maximum(x, math.sqrt(y)) + np.hypot(x, float(y))


def test_ufunc_of_float32_and_a_python_float_stays_float32():
    # was float64 (the batch's array of the Python floats widened the ufunc): per example
    # NumPy makes the Python float a float32 (NEP 50), as the operators already did
    x, y = np.array([1, 2, 0.1], np.float32), np.array([2.0, 3.0, 0.01])
    _same(vmap(_h8_ufunc_weak_float)(x, y), _h8_loop(_h8_ufunc_weak_float, x, y))


# hunt10
# ------ a shared divisor whose representative raises: the check on it was dropped (zeros)
def _mod_of_squares(a, b):
    n = 0
    for i in range(3):
        n += i ** 2
    return (a + (b > 0.5)) % (n % (not a))


def _mod_of_five(a, b):
    n = 5
    return (a + (b > 0.5)) % (n % (not a))


def _floordiv_by_flag(a, b):
    return (b + 1.5) // (3 * (not a))


def _divide_by_flags(a, b):
    return b / ((a > 0) + (not a) - 1)


@pytest.mark.parametrize("f", [_mod_of_squares, _mod_of_five, _floordiv_by_flag,
                               _divide_by_flags])
@pytest.mark.parametrize("a", [0, 1, 2, np.array(0, np.uint32), np.array(3)])
def test_a_shared_divisor_that_is_zero_raises(f, a):
    # the analysis ran `5 % (not 1)` on the representatives, which raised: the divisor's type
    # was unknown and no zero check was written, so `% 0` gave zeros with a warning where
    # numpy.vectorize raises ZeroDivisionError
    b = np.array([0, -1, 1, 5, 2], np.int8)
    expected, exc = _numpy_vectorize(f, a, b)
    vectorized = vectorize(f, fallback="error")
    for n in (1, 5):
        if exc is not None:
            # (the replay warns as numpy.vectorize does on its first call, on NumPy scalars)
            with pytest.raises(type(exc)), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                vectorized(a, b[:n])
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                _same(vectorized(a, b[:n]), _numpy_vectorize(f, a, b[:n])[0])


# ------ bools the same for every example used as numbers: the first example's NumPy bools
def _abs_of_shared_flag(a, b):
    return (b > 1), abs(b < 0.5)


def _count_of_shared_flags(a, b):
    flag = b
    flag += 1
    return max((flag != 1) + (b != 1), b)


def _negated_shared_flag(a, b):
    return -(b > 0), a


def _negated_on_one_path(a, b):
    return a if b > 0 else -(b < 0)


@pytest.mark.parametrize("f", [_abs_of_shared_flag, _count_of_shared_flags,
                               _negated_shared_flag, _negated_on_one_path])
@pytest.mark.parametrize("b", [3, -2, 0, np.array(-9223372036854775808), np.array(5), 2.5])
def test_shared_bools_as_numbers_take_the_first_examples_types(f, b):
    # the code computes with the Python numbers (`abs(True)` is 1), numpy.vectorize learns its
    # output types from a first call on NumPy scalars (`abs(np.True_)` is True, `-np.True_`
    # raises TypeError): int64 where it gives bool, values where it raises
    a = np.array([1.5, -2.0, np.nan])
    vectorized = vectorize(f, fallback="error")
    for n in (1, 3):
        expected, exc = _numpy_vectorize(f, a[:n], b)
        if exc is not None:
            with pytest.raises(type(exc)), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                vectorized(a[:n], b)
            continue
        got = vectorized(a[:n], b)
        for g, e in zip(got if isinstance(got, tuple) else (got,),
                        expected if isinstance(expected, tuple) else (expected,)):
            _same(g, e)


# lead (fuzz_bools seeds 3509, 8464)
# ---------- a NumPy bool (of a NumPy scalar argument, handed as it is) meeting a value that is a
# Python bool on some examples and a number on others: numpy.vectorize's `np.True_ + True` is a
# logical or (1), the batch's number addition gave 2
def _numpy_bool_plus_joined_bool(a, b):
    n = 0
    for i in range(3):
        n += (i + bool(b))
    return (b != 1) + ((n != 1) if a else b)


def _numpy_bool_plus_joined_name(a, b):
    flag = (a < 0.5)
    flag += -3
    return abs(b == a) + (flag if (not flag) else bool(flag))


@pytest.mark.parametrize("f, args", [
    (_numpy_bool_plus_joined_bool, (np.array([0.0, 1.0, 2.0], dtype=np.float32),
                                    np.float32(np.inf))),
    (_numpy_bool_plus_joined_name, (np.array([True, False, False, True]), np.int16(1))),
])
def test_a_numpy_bool_meeting_a_bool_on_some_examples_is_refused(f, args):
    expected, _ = _numpy_vectorize(f, *args)
    with pytest.raises(VectorizeError, match="bool on some examples"):
        vectorize(f, fallback="error")(*args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(vectorize(f)(*args), expected)
