"""The uses of ``numpy.vectorize`` in NumPy that ``test_numpy_vectorize.py`` does not port:
the doctest examples of ``numpy.vectorize``'s docstring (``numpy/lib/_function_base_impl.py``,
run by NumPy's doctest suite) and ``_core/tests/test_umath_accuracy.py``'s ``str_to_float``.
Each case runs with ``numpy.vectorize`` and with ours (`vectorize_reference.outcome`): the
same results (types, dtypes, shapes, values) or the same exception type, or, with
``fallback="error"``, a located `VectorizeError` (listed in ``REFUSED`` with the reason; with
the default fallback the answer is numpy.vectorize's).
"""

from __future__ import annotations

import ctypes
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vectorize_reference import case_table, outcome, report  # noqa: E402

CASES, case = case_table()


def myfunc(a, b):
    "Return a-b if a>b, otherwise return a+b"
    if a > b:
        return a - b
    else:
        return a + b


@case("docstring::myfunc")
def _(vec):
    vfunc = vec(myfunc)
    return vfunc([1, 2, 3, 4], 2), vfunc.__doc__


@case("docstring::doc=")
def _(vec):
    return vec(myfunc, doc='Vectorized `myfunc`').__doc__


@case("docstring::type(out[0])")
def _(vec):
    out = vec(myfunc)([1, 2, 3, 4], 2)
    return type(out[0]).__name__, out


@case("docstring::otypes=[float]")
def _(vec):
    out = vec(myfunc, otypes=[float])([1, 2, 3, 4], 2)
    return type(out[0]).__name__, out


def mypolyval(p, x):
    _p = list(p)
    res = _p.pop(0)
    while _p:
        res = res*x + _p.pop(0)
    return res


@case("docstring::excluded positional")
def _(vec):
    return vec(mypolyval, excluded={0, 'p'})([1, 2, 3], x=[0, 1])


@case("docstring::excluded keyword")
def _(vec):
    return vec(mypolyval, excluded={0, 'p'})(p=[1, 2, 3], x=[0, 1])


@case("docstring::convolve signature")
def _(vec):
    return vec(np.convolve, signature='(n),(m)->(k)')(np.eye(4), [1, 2, 1])


@case("docstring::decorator")
def _(vec):
    @vec
    def identity(x):
        return x
    return identity([0, 1, 2])


@case("docstring::decorator with otypes")
def _(vec):
    @vec(otypes=[float])
    def as_float(x):
        return x
    return as_float([0, 1, 2])


def convert(s, datatype="np.float32"):
    i = int(s, 16)                   # convert from hex to a Python integer
    if (datatype == "np.float64"):
        cp = ctypes.pointer(ctypes.c_longlong(i))
        fp = ctypes.cast(cp, ctypes.POINTER(ctypes.c_double))
    else:
        cp = ctypes.pointer(ctypes.c_int(i))
        fp = ctypes.cast(cp, ctypes.POINTER(ctypes.c_float))
    return fp.contents.value


@case("_core/test_umath_accuracy::str_to_float")
def _(vec):
    str_to_float = vec(convert)
    inputs = np.array(["0x3f800000", "0x40490fdb", "0xbf000000"])
    types = np.array(["np.float32", "np.float32", "np.float32"])
    wide = np.array(["0x3ff0000000000000", "0xc000000000000000"])
    return (np.array(str_to_float(inputs, types), dtype=np.float32),
            str_to_float(wide, np.array(["np.float64", "np.float64"])))


# The cases ``fallback="error"`` refuses (numpy.vectorize answers): each a located
# VectorizeError, and with the default fallback the answer is numpy.vectorize's.
REFUSED = {
    "docstring::excluded positional": "list.pop on a copy of an excluded list: its length "
                                      "is unknown to the analysis",
    "docstring::excluded keyword": "list.pop on a copy of an excluded list: its length "
                                   "is unknown to the analysis",
    "docstring::convolve signature": "np.convolve passed itself: not a Python function with "
                                     "source, and np.convolve has no batching rule",
    "_core/test_umath_accuracy::str_to_float": "ctypes pointers: a module without rules",
}


@pytest.mark.parametrize("name", list(CASES))
def test_numpy_vectorize34_case(name):
    assert outcome(CASES[name]) == ("refused" if name in REFUSED else "pass")


def test_refusals_are_the_known_ones():
    assert set(REFUSED) <= set(CASES)


if __name__ == "__main__":
    report(CASES)
