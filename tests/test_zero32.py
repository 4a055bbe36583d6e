"""The sign of a zero on lanes that are ints per example, checked at run time: a value that
is an int on some lanes and a float on others (``r = int(a) if c > 0 else a * 1.0``), then
an operation whose float result may be -0.0 where the int lane's is 0 (``-r``, ``r * -1``,
``r // -3``, ``r % -1``, ``divmod``, ``np.mod``, ``np.fmod``, ``r *= -1``). The batch is
computed and its result checked for a -0.0 (the per-example code decides there), where it
was refused. `vectorize` against numpy.vectorize (values, dtype, the sign of zeros, the
exception type), `vmap` against the loop over NumPy scalars, on NumPy, PyTorch and JAX."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vectorize import VectorizeError, vectorize, vmap
from vectorize.rules.python_errors import signed_zero_operation


def _neg(a, c):
    r = int(a) if c > 0 else a * 1.0
    return -r


def _times_k(a, c, k):
    r = int(a) if c > 0 else a * 1.0
    return r * k


def _floordiv_minus_three_then_inverse(a, c):
    if c > 0:
        r = int(a)
    else:
        r = a * 1.0
    q = r // -3
    return 1.0 / q if q != 0 else math.copysign(5.0, q)


def _mod_minus_one(a, c):
    r = int(a) if c > 0 else a * 1.0
    return r % -1


def _divmod_minus_two(a, c):
    r = int(a) if c > 0 else a * 1.0
    q, m = divmod(r, -2)
    return math.copysign(1.0, q) + math.copysign(3.0, m)


def _np_mod(a, c):
    r = int(a) if c > 0 else a * 1.0
    return np.mod(r, -1)


def _np_fmod(a, c):
    r = int(a) if c > 0 else a * 1.0
    return np.fmod(r, 2)


def _augmented(a, c):
    r = int(a) if c > 0 else a * 1.0
    r *= -1
    return math.copysign(1.0, r)


def _nested(a, c):
    r = int(a) if c > 0 else a * 1.0
    return math.copysign(1.0, -(r * 2)) + -(r * 2)


def _under_if(a, c):
    r = int(a) if c > 0 else a * 1.0
    if a > 1:
        return -r
    return r


_PROGRAMS = [_neg, _floordiv_minus_three_then_inverse, _mod_minus_one, _divmod_minus_two,
             _np_mod, _np_fmod, _augmented, _nested, _under_if]

# ±0, negatives, halves (int() truncates them to 0), big and small, NaN and infinities
_VALUES = st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 0.5, -0.5, 7.0,
                           -6.0, 1e300, -1e300, 1e-300, math.nan, math.inf, -math.inf])
_FINITE = st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.0, -3.0, 0.5, -0.5, 7.0, -6.0, 1e15])


def _same_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got, want)
    np.testing.assert_array_equal(got, want)
    if want.dtype.kind == "O":      # (an int beyond int64: the Python ints themselves)
        assert [type(x) for x in got.flat] == [type(x) for x in want.flat]
        return
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def _outcome(thunk):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return thunk(), None
        except Exception as exc:   # noqa: BLE001 -- compared by type
            return None, type(exc)


def _loop(f, *args):
    return np.stack([np.asarray(f(*row)) for row in zip(*args)])


@pytest.mark.parametrize("f", _PROGRAMS, ids=lambda f: f.__name__)
@settings(max_examples=12, deadline=None)
@given(rows=st.lists(st.tuples(_VALUES, st.sampled_from([-1.0, 1.0])), min_size=1,
                     max_size=6))
def test_vectorize_as_numpy_vectorize(f, rows):
    a = np.array([r[0] for r in rows])
    c = np.array([r[1] for r in rows])
    want, want_exc = _outcome(lambda: np.vectorize(f)(a, c))
    got, got_exc = _outcome(lambda: vectorize(f, fallback="error")(a, c))
    assert got_exc is want_exc, (got_exc, want_exc)
    if want_exc is None:
        _same_bits(got, want)


def _np_mod_by_k(a, c, k):
    r = int(a) if c > 0 else a * 1.0
    return np.mod(r, k)


def _np_fmod_of_bool_by_k(a, c, k):
    r = (a > 1) if c > 0 else a * 0.5
    return math.copysign(1.0, np.fmod(r, k))


@pytest.mark.parametrize("f", [_times_k, _np_mod_by_k, _np_fmod_of_bool_by_k],
                         ids=lambda f: f.__name__)
@settings(max_examples=10, deadline=None)
@given(rows=st.lists(st.tuples(_VALUES, st.sampled_from([-1.0, 1.0]),
                               st.integers(-3, 3)), min_size=1, max_size=6))
def test_vectorize_by_per_example_int(f, rows):
    a, c, k = (np.array([r[i] for r in rows]) for i in range(3))
    want, want_exc = _outcome(lambda: np.vectorize(f)(a, c, k))
    got, got_exc = _outcome(lambda: vectorize(f, fallback="error")(a, c, k))
    assert got_exc is want_exc
    if want_exc is None:
        _same_bits(got, want)


def test_vectorize_numpy_int_division_by_zero_on_an_int_lane():
    # np.mod(0, 0) of Python ints is NumPy's int 0 (no exception), np.mod(3, 0) too; the
    # batch's float gives nan there: a zero divisor lets numpy.vectorize decide
    a, c, k = np.array([2.5, 3.0, 0.0, 4.0]), np.array([-1.0, 1.0, 1.0, 1.0]), np.array(
        [2, 0, 0, -3])
    for f in (_np_mod_by_k, _np_fmod_of_bool_by_k):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            want = np.vectorize(f)(a, c, k)
            _same_bits(vectorize(f, fallback="error")(a, c, k), want)


_VMAPPED: dict = {}


@settings(max_examples=8, deadline=None)
@given(rows=st.lists(st.tuples(_FINITE, st.sampled_from([-1.0, 1.0])), min_size=4,
                     max_size=4))
def test_vmap_as_the_loop(rows):
    # (a float lane always: where every example is an int the loop's stack is int64, the
    # batch's the join, float64, by design)
    rows = rows + [(1.5, -1.0)]
    a = np.array([r[0] for r in rows])
    c = np.array([r[1] for r in rows])
    for f in (_neg, _mod_minus_one, _floordiv_minus_three_then_inverse, _augmented,
              _nested, _under_if):
        vm = _VMAPPED.setdefault(f, vmap(f))
        want = _loop(f, a, c)
        got, exc = _outcome(lambda vm=vm, a=a: vm(a, c))
        assert exc is None, (f.__name__, exc)
        _same_bits(got, want)


@pytest.mark.parametrize("backend", ["torch", "jax"])
@pytest.mark.parametrize("f", [_neg, _augmented], ids=lambda f: f.__name__)
def test_vmap_other_backends_as_the_loop(backend, f):
    pytest.importorskip(backend)
    # an int zero (the check fires: the loop), then no zero on an int lane (the batch)
    c = np.array([1.0, -1.0, -1.0, 1.0])
    vm = vmap(f, backend=backend)
    for a in (np.array([0.0, -0.0, 0.0, 2.0]), np.array([3.0, -0.0, 0.5, -2.0])):
        got, exc = _outcome(lambda vm=vm, a=a: vm(a, c))
        assert exc is None, exc
        _same_bits(np.asarray(got), _loop(f, a, c))


# the first lane an int zero, lane 2 a float -0.0 (kept), lane 3 a float 0.0 (negated)
A = np.array([0.0, 2.0, -0.0, 0.0, -5.0])
C = np.array([1.0, -1.0, -1.0, -1.0, 1.0])


@pytest.mark.parametrize("f", _PROGRAMS, ids=lambda f: f.__name__)
def test_int_lane_zero_fixed_example(f):
    want = np.vectorize(f)(A, C)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same_bits(vectorize(f, fallback="error")(A, C), want)
        _same_bits(vmap(f)(A, C), _loop(f, A, C))


def test_no_zero_no_replay():
    # no lane's result is -0.0: the batch's answer (the check does not fire)
    a, c = np.array([1.5, 2.0, -3.0, 4.0]), np.array([1.0, -1.0, 1.0, -1.0])
    vm = vmap(_neg)
    _same_bits(vm(a, c), _loop(_neg, a, c))
    assert vm.replays == 0
    v = vectorize(_neg, fallback="error")
    assert "copysign" in v.source(a, c)
    _same_bits(v(a, c), np.vectorize(_neg)(a, c))


def _positive_constants(a, c):
    r = int(a) if c > 0 else a * 1.0
    return r * 3 + r // 2 + r % 7 + np.fmod(r, 1.5)


def test_positive_constants_and_float_operands_need_no_check():
    a, c = np.array([0.0, -0.0, 3.0, -2.0]), np.array([1.0, -1.0, 1.0, -1.0])
    v = vectorize(_positive_constants, fallback="error")
    assert "copysign" not in v.source(a, c)
    _same_bits(v(a, c), np.vectorize(_positive_constants)(a, c))


def _int64_or_float_by_k(x, y, c, k):
    r = x if c > 0 else y
    q = r // k
    r %= k
    return q + r * 0.5


@pytest.mark.parametrize("backend", ["numpy", "jax"])
def test_vmap_numpy_int_division_by_zero_on_an_int64_lane(backend):
    # an int64 lane's `3 // 0` is NumPy's 0, the batch's float inf (`nan` for `%`): the
    # divisor's zero lets the loop decide; the float lane's own nan kept
    pytest.importorskip(backend)
    x, c = np.array([3, 0, 5, 7]), np.array([1.0, 1.0, -1.0, -1.0])
    vm = vmap(_int64_or_float_by_k, backend=backend)
    for k in (np.array([2, 0, 0, -3]), np.array([2, -1, 4, -3])):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            want = _loop(_int64_or_float_by_k, x, x * 1.5, c, k)
            got = vm(x, x * 1.5, c, k)
        _same_bits(np.asarray(got), want)


def _helper_neg(r):
    return -r


def _via_helper(a, c):
    r = int(a) if c > 0 else a * 1.0
    return _helper_neg(r)


def test_vmap_helper_checked_jax_refused_located():
    # (a helper's check may fire on lanes its caller never calls it for: where the batch
    # that raises replays the loop it is written; JAX's helpers cannot raise, refused)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same_bits(vmap(_via_helper)(A, C), _loop(_via_helper, A, C))
    pytest.importorskip("jax")
    with pytest.raises(VectorizeError, match=r"test_zero32\.py:\d+:\d+"):
        vmap(_via_helper, backend="jax")(A, C)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same_bits(vectorize(_via_helper, fallback="error")(A, C),
                   np.vectorize(_via_helper)(A, C))


def test_the_predicate():
    int_zero = {"neg": (0,), "mul": (0, -3), "floordiv": (0, -3), "mod": (3, -1),
                "divmod": (0, -1), "fmod": (-3, 1)}
    for name, operands in int_zero.items():
        # (where it says so, the float computation does give -0.0 for an int 0)
        assert signed_zero_operation(name, ["int"] * len(operands))
        import operator
        fn = {"divmod": divmod, "fmod": np.fmod}.get(name) or getattr(operator, name)
        floats = fn(*map(float, operands))
        floats = floats if isinstance(floats, tuple) else (floats,)
        assert any(math.copysign(1.0, x) < 0 and x == 0 for x in floats), name
    assert not signed_zero_operation("mul", ["int", "positive"])
    assert not signed_zero_operation("floordiv", ["int", "positive"])
    assert not signed_zero_operation("mod", ["int", "positive"])
    assert signed_zero_operation("fmod", ["int", "positive"])
    assert not signed_zero_operation("fmod", ["int", "float"])
    assert not signed_zero_operation("add", ["int", "int"])
