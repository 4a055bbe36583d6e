"""Regressions found on real scalar functions of public packages (tests/real_pkgs, geopy),
each against the reference (the per-example loop over NumPy scalars for vmap,
numpy.vectorize for vectorize)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from vectorize import vectorize, vmap


# geopy.units: `degrees(radians=0, arcminutes=0, arcseconds=0)` calls the module's aliases
# `arcmin = arcminutes` and `arcsec = arcseconds`, helpers whose names are its own parameters
def unit_minutes(degrees=0, seconds=0):
    if seconds:
        degrees += seconds / unit_sec(degrees=1.)
    return degrees * 60.


def unit_seconds(degrees=0, minutes=0):
    return degrees * 3600.


unit_min = unit_minutes
unit_sec = unit_seconds


def to_degrees(radians=0, unit_minutes=0, unit_seconds=0):
    deg = 0.
    if radians:
        deg = math.degrees(radians)
    if unit_minutes:
        deg += unit_minutes / unit_min(degrees=1.)
    if unit_seconds:
        deg += unit_seconds / unit_sec(degrees=1.)
    return deg


def _mid(x, unit_seconds):
    if unit_seconds:
        x += unit_seconds / unit_sec(degrees=1.)
    return x


def minutes_of(degrees, seconds):
    # a helper whose parameter is named as the helper it calls: one level down
    return _mid(degrees, seconds) * 60.


COLS = ([0.0, 1.0, -2.5, 0.0], [0.0, 30.0, -15.0, 7.0], [0.0, 0.0, 90.0, -3600.0])


def _loop(f, *cols):
    return np.stack([f(*row) for row in zip(*cols)])


@pytest.mark.parametrize("f, cols", [(to_degrees, COLS), (minutes_of, COLS[:2])])
def test_vmap_helper_alias_named_as_a_parameter(f, cols):
    # was: TypeError 'numpy.ndarray' object is not callable (the helper was emitted under
    # its own name, which the caller's parameter shadows), replayed with a warning
    cols = [np.asarray(c) for c in cols]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = vmap(f)(*cols)
    ref = _loop(f, *cols)
    assert got.dtype == ref.dtype
    np.testing.assert_allclose(got, ref, rtol=1e-12)


def _no_replay(*args, **kwargs):
    raise AssertionError("the batched code raised: the per-example loop was replayed")


@pytest.mark.parametrize("f, cols", [(to_degrees, COLS), (minutes_of, COLS[:2])])
def test_vectorize_helper_alias_named_as_a_parameter(f, cols):
    cols = [np.asarray(c) for c in cols]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        vf = vectorize(f)
        vf._replay = _no_replay     # the batched code's answer, not numpy.vectorize's loop
        got = vf(*cols)
    ref = np.vectorize(f)(*cols)
    assert got.dtype == ref.dtype
    np.testing.assert_allclose(got, ref, rtol=1e-12)
