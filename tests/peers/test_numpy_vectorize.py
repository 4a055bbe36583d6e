"""NumPy's own tests of ``numpy.vectorize`` (``numpy/lib/tests/test_function_base.py``,
class ``TestVectorize``), ported as differential tests: each case runs with
``numpy.vectorize`` and with ours (`vectorize_reference.outcome`), and ours must give the
same results (types, dtypes, shapes, values) or raise the same exception type, or, with
``fallback="error"``, be refused with a located `VectorizeError`. ``REFUSED`` lists the
cases refused that way (a gap where numpy.vectorize answers; each says why); every other
case must pass, so a refusal that starts to pass, or a new one, fails
`test_refusals_are_the_known_ones`.

Not ported: ``test_parse_gufunc_signature`` (numpy's private parser; ours has its tests in
``tests/test_signature.py``) and ``TestLeaks`` (frompyfunc's reference cycles).
The other uses of ``numpy.vectorize`` in NumPy's tests (``lib/tests/test_regression.py``,
``_core/tests/test_regression.py``, ``_core/tests/test_multiarray.py``,
``lib/tests/test_arraysetops.py``) are ported as cases named by their file and test.
``test_size_zero_output`` is ported with its one documented divergence (an empty batch needs
no ``otypes`` here: docs/semantics.md), checked on its own in
`test_size_zero_needs_no_otypes`.
"""

from __future__ import annotations

import fractions
import functools
import math
import operator
import os
import random
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vectorize_reference import case_table, outcome, report  # noqa: E402

from vectorize import vectorize  # noqa: E402

CASES, case = case_table()


def _foo1(x, y=1.0):
    return y * math.floor(x)


def _foo2(x, y=1.0, z=0.0):
    return y * math.floor(x) + z


def addsubtract(a, b):
    if a > b:
        return a - b
    else:
        return a + b


@case("test_simple")
def _(vec):
    return vec(addsubtract)([0, 3, 6, 9], [1, 3, 5, 7])


@case("test_scalar")
def _(vec):
    return vec(addsubtract)([0, 3, 6, 9], 5)


@case("test_large")
def _(vec):
    x = np.linspace(-3, 2, 10000)
    return vec(lambda x: x)(x)


@case("test_ufunc")
def _(vec):
    args = np.array([0, 0.5 * np.pi, np.pi, 1.5 * np.pi, 2 * np.pi])
    return vec(math.cos)(args)


@case("test_ufunc[def]")
def _(vec):
    def cos(x):
        return math.cos(x)
    args = np.array([0, 0.5 * np.pi, np.pi, 1.5 * np.pi, 2 * np.pi])
    return vec(cos)(args)


@case("test_keywords")
def _(vec):
    def foo(a, b=1):
        return a + b
    f = vec(foo)
    args = np.array([1, 2, 3])
    return f(args), f(args, 2)


@case("test_keywords_with_otypes_order1")
def _(vec):
    f = vec(_foo1, otypes=[float])
    return f(np.arange(3.0), 1.0), f(np.arange(3.0))


@case("test_keywords_with_otypes_order2")
def _(vec):
    f = vec(_foo1, otypes=[float])
    return f(np.arange(3.0)), f(np.arange(3.0), 1.0)


@case("test_keywords_with_otypes_order3")
def _(vec):
    f = vec(_foo1, otypes=[float])
    return f(np.arange(3.0)), f(np.arange(3.0), y=1.0), f(np.arange(3.0))


@case("test_keywords_with_otypes_several_kwd_args1")
def _(vec):
    f = vec(_foo2, otypes=[float])
    return f(10.4, z=100), f(10.4, y=-1), f(10.4)


@case("test_keywords_with_otypes_several_kwd_args2")
def _(vec):
    f = vec(_foo2, otypes=[float])
    return f(z=100, x=10.4, y=-1), f(1, 2, 3)


@case("test_keywords_no_func_code")
def _(vec):
    return type(vec(random.randrange)).__name__ == "vectorize"


@case("test_keywords2_ticket_2100")
def _(vec):
    def foo(a, b=1):
        return a + b
    f = vec(foo)
    args = np.array([1, 2, 3])
    return f(a=args), f(b=1, a=args), f(args, b=2)


@case("test_keywords3_ticket_2100")
def _(vec):
    def mypolyval(x, p):
        _p = list(p)
        res = _p.pop(0)
        while _p:
            res = res * x + _p.pop(0)
        return res
    vpolyval = vec(mypolyval, excluded=['p', 1])
    return (vpolyval(x=[0, 1], p=[1, 2, 3]), vpolyval([0, 1], p=[1, 2, 3]),
            vpolyval([0, 1], [1, 2, 3]))


@case("test_keywords3_ticket_2100[indexed]")
def _(vec):
    # the same polynomial without list.pop: Horner's rule over an excluded list
    def mypolyval(x, p):
        res = p[0]
        for c in p[1:]:
            res = res * x + c
        return res
    vpolyval = vec(mypolyval, excluded=['p', 1])
    return (vpolyval(x=[0, 1], p=[1, 2, 3]), vpolyval([0, 1], p=[1, 2, 3]),
            vpolyval([0, 1], [1, 2, 3]), vpolyval(np.linspace(-2, 2, 7), (0.5, -1, 2)))


@case("test_keywords4_ticket_2100")
def _(vec):
    @vec
    def f(**kw):
        res = 1.0
        for _k in kw:
            res *= kw[_k]
        return res
    return f(a=[1, 2], b=[3, 4])


@case("test_keywords5_ticket_2100")
def _(vec):
    @vec
    def f(*v):
        return np.prod(v)
    return f([1, 2], [3, 4])


@case("test_coverage1_ticket_2100")
def _(vec):
    def foo():
        return 1
    return vec(foo)()


@case("test_assigning_docstring")
def _(vec):
    def foo(x):
        """Original documentation"""
        return x
    return vec(foo).__doc__, vec(foo, doc="Provided documentation").__doc__


class Foo:
    b = 2

    def bar(self, a):
        return a ** self.b


@case("test_UnboundMethod_ticket_1156[bound]")
def _(vec):
    return vec(Foo().bar)(np.arange(9))


@case("test_UnboundMethod_ticket_1156[unbound]")
def _(vec):
    return vec(Foo.bar)(Foo(), np.arange(9))


@case("test_execution_order_ticket_1487")
def _(vec):
    f1 = vec(lambda x: x)
    res1a = f1(np.arange(3))
    res1b = f1(np.arange(0.1, 3))
    f2 = vec(lambda x: x)
    res2b = f2(np.arange(0.1, 3))
    res2a = f2(np.arange(3))
    return res1a, res1b, res2a, res2b


@case("test_string_ticket_1892")
def _(vec):
    s = '0123456789' * 10
    return vec(lambda x: x)(s)


@case("test_dtype_promotion_gh_29189")
def _(vec):
    return [vec(lambda x: x + x)(np.asarray([1, 2, 3], dtype=dtype))
            for dtype in [np.int16, np.int32, np.int64, np.float16, np.float32, np.float64]]


@case("test_cache")
def _(vec):
    _calls = [0]

    @vec
    def f(x):
        _calls[0] += 1
        return x ** 2
    f.cache = True
    return f(np.arange(5)), _calls[0]


@case("test_otypes")
def _(vec):
    f = vec(lambda x: x)
    f.otypes = 'i'
    return f(np.arange(5))


@case("test_otypes[set after a call]")
def _(vec):
    f = vec(lambda x: x + 1)
    first = f(np.arange(5))
    f.otypes = 'd'
    second = f(np.arange(5))
    f.otypes = None
    return first, second, f(np.arange(5))


@case("test_otypes_object_28624")
def _(vec):
    y = np.arange(3)
    f = vec(lambda x: y, otypes=[object])
    z = [1, 2, 3]
    g = vec(lambda x: z, otypes=[object])
    return (f(None).item() is y, f([None]).item() is y, g(None).item() is z,
            g([None]).item() is z)


@case("test_otypes_object_28624[numbers]")
def _(vec):
    y = np.arange(3)
    f = vec(lambda x: y * x, otypes=[object])
    return f([1.0, 2.0])


@case("test_signature_simple")
def _(vec):
    return vec(addsubtract, signature='(),()->()')([0, 3, 6, 9], [1, 3, 5, 7])


@case("test_signature_mean_last")
def _(vec):
    def mean(a):
        return a.mean()
    return vec(mean, signature='(n)->()')([[1, 3], [2, 4]])


@case("test_signature_center")
def _(vec):
    def center(a):
        return a - a.mean()
    return vec(center, signature='(n)->(n)')([[1, 3], [2, 4]])


@case("test_signature_two_outputs")
def _(vec):
    return vec(lambda x: (x, x), signature='()->(),()')([1, 2, 3])


@case("test_signature_outer")
def _(vec):
    f = vec(np.outer, signature='(a),(b)->(a,b)')
    return (f([1, 2], [1, 2, 3]), f([[[1, 2]]], [1, 2, 3]), f([[1, 0], [2, 0]], [1, 2, 3]),
            f([1, 2], [[1, 2, 3], [0, 0, 0]]))


@case("test_signature_outer[def]")
def _(vec):
    def outer(a, b):
        return np.outer(a, b)
    f = vec(outer, signature='(a),(b)->(a,b)')
    return (f([1, 2], [1, 2, 3]), f([[[1, 2]]], [1, 2, 3]), f([[1, 0], [2, 0]], [1, 2, 3]),
            f([1, 2], [[1, 2, 3], [0, 0, 0]]))


@case("test_signature_computed_size")
def _(vec):
    f = vec(lambda x: x[:-1], signature='(n)->(m)')
    return f([1, 2, 3]), f([[1, 2, 3], [2, 3, 4]])


@case("test_signature_excluded")
def _(vec):
    def foo(a, b=1):
        return a + b
    f = vec(foo, signature='()->()', excluded={'b'})
    return f([1, 2, 3]), f([1, 2, 3], b=0)


@case("test_signature_otypes")
def _(vec):
    return vec(lambda x: x, signature='(n)->(n)', otypes=['float64'])([1, 2, 3])


@case("test_signature_invalid_inputs[few positional]")
def _(vec):
    return vec(operator.add, signature='(n),(n)->(n)')([1, 2])


@case("test_signature_invalid_inputs[few positional, def]")
def _(vec):
    return vec(lambda x, y: x + y, signature='(n),(n)->(n)')([1, 2])


@case("test_signature_invalid_inputs[not enough dimensions]")
def _(vec):
    return vec(lambda x, y: x + y, signature='(n),(n)->(n)')(1, 2)


@case("test_signature_invalid_inputs[inconsistent core size]")
def _(vec):
    return vec(lambda x, y: x + y, signature='(n),(n)->(n)')([1, 2], [1, 2, 3])


@case("test_signature_invalid_inputs[many positional]")
def _(vec):
    return vec(lambda x, y: x + y, signature='()->()')(1, 2)


@case("test_signature_invalid_outputs[inconsistent core size]")
def _(vec):
    return vec(lambda x: x[:-1], signature='(n)->(n)')([1, 2, 3])


@case("test_signature_invalid_outputs[one for two]")
def _(vec):
    return vec(lambda x: x, signature='()->(),()')(1)


@case("test_signature_invalid_outputs[two for one]")
def _(vec):
    return vec(lambda x: (x, x), signature='()->()')([1, 2])


@case("test_size_zero_output[otypes]")
def _(vec):
    x = np.zeros([0, 5], dtype=int)
    f = vec(lambda x: x)
    f.otypes = 'i'
    return (f(x), vec(lambda x: x, signature='()->()', otypes='i')(x),
            vec(lambda x: x, signature='(n)->(n)', otypes='i')(x),
            vec(lambda x: x, signature='(n)->(n)')(x.T))


@case("test_size_zero_output[new output dimensions]")
def _(vec):
    x = np.zeros([0, 5], dtype=int)
    return vec(lambda x: [x], signature='()->(n)', otypes='i')(x)


class subclass(np.ndarray):
    pass


def _subclass_operands():
    m = np.array([[1., 0., 0.], [0., 0., 1.], [0., 1., 0.]]).view(subclass)
    v = np.array([[1., 2., 3.], [4., 5., 6.], [7., 8., 9.]]).view(subclass)
    return m, v


@case("test_subclasses[gufunc]")
def _(vec):
    return vec(np.matmul, signature='(m,m),(m)->(m)')(*_subclass_operands())


@case("test_subclasses[gufunc, def]")
def _(vec):
    def matvec(a, b):
        return a @ b
    return vec(matvec, signature='(m,m),(m)->(m)')(*_subclass_operands())


@case("test_subclasses[ufunc]")
def _(vec):
    return vec(lambda x, y: x * y)(*_subclass_operands())


@case("test_name")
def _(vec):
    @vec
    def f2(a, b):
        return a + b
    return f2.__name__, f2(1, 2)


@case("test_decorator")
def _(vec):
    @vec
    def addsubtract(a, b):
        if a > b:
            return a - b
        else:
            return a + b
    return addsubtract([0, 3, 6, 9], [1, 3, 5, 7])


@case("test_docstring")
def _(vec):
    @vec
    def f(x):
        """Docstring"""
        return x
    return f.__doc__


@case("test_partial")
def _(vec):
    def foo(x, y):
        return x + y
    return vec(functools.partial(foo, 3))(1)


@case("test_signature_otypes_decorator")
def _(vec):
    @vec(signature='(n)->(n)', otypes=['float64'])
    def f(x):
        return x
    return f([1, 2, 3]), f.__name__


@case("test_bad_input")
def _(vec):
    return vec(pyfunc=3)


@case("test_no_keywords")
def _(vec):
    @vec("string")
    def foo():
        return "bar"
    return foo


@case("test_positional_regression_9477")
def _(vec):
    return vec((lambda x: x), ['float64'])([2])


@case("test_datetime_conversion")
def _(vec):
    arr = np.array(['2024-01-01', '2024-01-02', '2024-01-03'], dtype='datetime64[ns]')
    return vec(lambda x: x, signature="(i)->(j)", otypes=["datetime64[ns]"])(arr)


# numpy.vectorize in NumPy's other test files


@case("lib/test_regression::test_mem_vectorise")
def _(vec):
    vt = vec(lambda *args: args)
    return (vt(np.zeros((1, 2, 1)), np.zeros((2, 1, 1)), np.zeros((1, 1, 2))),
            vt(np.zeros((1, 2, 1)), np.zeros((2, 1, 1)), np.zeros((1, 1, 2)), np.zeros((2, 2))))


@case("lib/test_regression::test_refcount_vectorize")
def _(vec):
    def p(x, y):
        return 123
    v = vec(p)
    return v(1, 2), v(np.arange(3), 1)


@case("_core/test_regression::test_vectorize_fixed_width_string")
def _(vec):
    arr = np.array(["SOme wOrd \u01c4 \xdf \u1f9b \u03a3\u03a3 "
                    "\ufb03\u2075\xc5 \xc7 \u2160"]).astype(np.str_)
    return vec(str.casefold, otypes=[arr.dtype])(arr)


@case("_core/test_multiarray::test_matmul_object")
def _(vec):
    f = vec(fractions.Fraction)
    rng = np.random.default_rng(0)
    return f(rng.integers(1, 1000, size=(4, 3, 3)), rng.integers(1, 1000, size=(4, 3, 3)))


def _isin_slow(a, b):
    b = np.asarray(b).flatten().tolist()
    return a in b


@case("lib/test_arraysetops::test_isin")
def _(vec):
    isin_slow = vec(_isin_slow, otypes=[bool], excluded={1})
    a = np.arange(24).reshape([2, 3, 4])
    b = np.array([[10, 20, 30], [0, 1, 3], [11, 22, 33]])
    f = np.array(3)
    out = [isin_slow(a, b), isin_slow([(9, 8), (7, 6)], (9, 7)), isin_slow(f, b),
           isin_slow(a, f), isin_slow(f, f), isin_slow(5, b), isin_slow(a, 6),
           isin_slow(5, 6), isin_slow([], b), isin_slow(a, []), isin_slow([], [])]
    for dtype in [bool, np.int64, np.float64]:
        ar = np.array([True, False, False]) if dtype is bool else np.array([10, 20, 30],
                                                                            dtype=dtype)
        empty = np.array([], dtype=dtype)
        out += [isin_slow(empty, ar), isin_slow(ar, empty), isin_slow(empty, empty)]
    return out


# The cases ``fallback="error"`` refuses (numpy.vectorize answers, but where marked): each a
# located VectorizeError, and with the default fallback the answer is numpy.vectorize's.
REFUSED = {
    "test_keywords3_ticket_2100": "list.pop on a copy of an excluded list: its length is "
                                  "unknown to the analysis",
    "test_keywords4_ticket_2100": "keywords that go to a ** parameter",
    "test_cache": "a write into a global list (the call counter)",
    "test_datetime_conversion": "a datetime64 argument",
    "_core/test_regression::test_vectorize_fixed_width_string": "str.casefold: a method "
                                                                "without source or rule",
    "_core/test_multiarray::test_matmul_object": "fractions.Fraction: a class without rule "
                                                 "(an object array of Fractions)",
    "lib/test_arraysetops::test_isin": "`in` of a list computed from an excluded argument",
}


@pytest.mark.parametrize("name", list(CASES))
def test_numpy_vectorize_case(name):
    assert outcome(CASES[name]) == ("refused" if name in REFUSED else "pass")


def test_refusals_are_the_known_ones():
    assert set(REFUSED) <= set(CASES)


def test_size_zero_needs_no_otypes():
    # numpy.vectorize raises ValueError ("cannot call `vectorize` on size 0 inputs unless
    # `otypes` is set"); ours answers with the dtype the generated code gives (the documented
    # divergence), also under a signature, and keeps numpy's error where the signature has an
    # output-only dimension
    x = np.zeros([0, 5], dtype=int)
    with pytest.raises(ValueError, match="otypes"):
        np.vectorize(lambda x: x)(x)
    for options in ({}, {"signature": "()->()"}):
        got = vectorize(lambda x: x, fallback="error", **options)(x)
        assert got.dtype == x.dtype and got.shape == x.shape
    got = vectorize(lambda x: x * 0.5, fallback="error")(x)
    assert got.dtype == np.float64 and got.shape == x.shape
    with pytest.raises(ValueError, match="new output dimensions"):
        vectorize(lambda x: x, signature='()->(n)', otypes="i", fallback="error")(x)


if __name__ == "__main__":
    report(CASES)
