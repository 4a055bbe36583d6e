"""Regressions found on real scalar functions of public packages (tests/real_pkgs), each
against the reference (the per-example loop over NumPy scalars for vmap, numpy.vectorize for
vectorize)."""

from __future__ import annotations

import warnings
from math import log, sqrt

import numpy as np
import pytest

from vectorize import vectorize, vmap


def _avci_karagoz(Re, eD):
    # fluids.friction.Avci_Karagoz_2009: a Python float (math.log of a NumPy scalar) to a
    # fractional power, times a literal
    return 6.4*(log(Re) - log(1.0 + 0.01*Re*eD*(1.0+10.0*sqrt(eD))))**-2.4


def _scaled_power(x, y):
    return 2.0 * (log(x) - log(1.0 + y)) ** 0.5 / 3.0


def _loop(f, *cols):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.stack([f(*row) for row in zip(*cols)])


@pytest.mark.parametrize("f, cols", [
    (_avci_karagoz, ([1e5, 1e7, 4e3], [1e-4, 0.05, 0.0])),
    (_scaled_power, ([3.0, 9.0, 1e3], [1.0, 1.5, 0.25])),
])
def test_vmap_python_float_fractional_power_is_real(f, cols):
    # was: complex128 (the power's representative lane, log(1) - log(2) < 0, was Python's
    # complex number, so `6.4 * ...` became a complex product) where every lane is real
    cols = [np.asarray(c) for c in cols]
    ref = _loop(f, *cols)
    got = vmap(f)(*cols)
    assert got.dtype == ref.dtype == np.float64
    np.testing.assert_allclose(got, ref, rtol=1e-14)
    got = vectorize(f)(*cols)
    ref = np.vectorize(f)(*[c.tolist() for c in cols])
    assert got.dtype == ref.dtype
    np.testing.assert_allclose(got, ref, rtol=1e-14)


def test_vmap_python_float_negative_fractional_power_is_the_loops_complex():
    # a lane whose base is negative: the loop's complex number, as the loop gives it
    cols = [np.array([1e5, 1.0]), np.array([1e-4, 1.0])]
    ref = _loop(_avci_karagoz, *cols)
    got = vmap(_avci_karagoz)(*cols)
    assert got.dtype == ref.dtype == np.complex128
    np.testing.assert_allclose(got, ref, rtol=1e-14)
