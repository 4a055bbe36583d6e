"""Wrong results found by the fuzzers (benchmarks/fuzz_*.py), each fixed in general:
`vmap` against the loop over NumPy scalars (values and dtype, or the same exception type),
`vectorize` against numpy.vectorize."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from vectorize import vmap


def _loop(f, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return np.stack([np.asarray(f(*row)) for row in zip(*args)])


def _vmap_same(f, *args):
    want = _loop(f, *args)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        got = vmap(f)(*args)
    assert got.dtype == want.dtype, (got, want)
    np.testing.assert_array_equal(got, want)


# `x.item()` of a per-example NumPy scalar is a Python number, weak in what it meets
# (NEP 50): `x ** x.item()` of a uint64 `x` is a uint64 (fuzz_nep50 seed 90888 typed it
# float64 and wrote `r - 255.0`), `y * x.item()` of a float32 `y` a float32


def item_power_minus(x, y):
    r = x ** x.item()
    return r - 255


def item_times(x, y):
    return y * x.item()


def item_plus_then_minus(x, y):
    r = y + x.item()
    return r - 3


_ITEM_DTYPES = [np.bool_, np.int8, np.uint8, np.int32, np.uint32, np.int64, np.uint64,
                np.float16, np.float32, np.float64]


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.uint64, np.int64,
                                   np.float32, np.float64])
def test_item_power_keeps_the_base_type(dtype):
    x = np.array([2, 3, 1, 0, 5], dtype=dtype)
    _vmap_same(item_power_minus, x, x)


@pytest.mark.parametrize("f", [item_times, item_plus_then_minus])
@pytest.mark.parametrize("xt", _ITEM_DTYPES)
def test_item_is_weak_python_number(f, xt):
    x = np.array([1, 0, 3, 2], dtype=xt)
    for yt in _ITEM_DTYPES:
        if xt is not np.bool_ or yt is not np.bool_:
            _vmap_same(f, x, np.array([2, 5, 1, 0], dtype=yt))
