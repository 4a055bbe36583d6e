"""An augmented assignment (``x += y``) to a parameter whose per-example value is a row of
the caller's array (``vmap`` over a 2-D array, ``vectorize`` with a ``signature``).

Per example ``x`` is a view of the caller's array: ``vmap``'s loop (and ``torch.func``'s)
changes the caller's array in place, numpy.vectorize hands out read-only rows and raises
``ValueError: output array is read-only``. The batched code used to rebind ``x`` only: the
same values returned, the caller's array kept (vmap), or a result where numpy.vectorize
raises (vectorize). Refused now; rebinding the parameter first (``x = x.copy()``, ``x = x *
2``) makes it the function's own array, which passes.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

from vectorize import VectorizeError, vectorize, vmap


def bump(x, y):
    x += y
    return x


def bump_view(x, y):
    x = x[1:]
    x *= y
    return x


def bump_copy(x, y):
    x = x.copy()
    x += y
    return x


def bump_new(x, y):
    x = x * 2
    x -= y
    return x


def bump_in_branch(x, y):
    if y > 0:
        x = x * 2
    x += y
    return x


def loop(f, x, y):
    """vmap's reference: the function on each row of ``x`` (a view) with ``y`` as it is."""
    return np.stack([f(x[i], y) for i in range(len(x))])


@pytest.mark.parametrize("f", [bump, bump_view])
def test_vmap_refuses_an_update_of_the_callers_rows(f):
    x = np.arange(6.).reshape(2, 3)
    before = x.copy()
    with pytest.raises(VectorizeError, match="row of the caller's argument") as info:
        vmap(f, in_axes=(0, None))(x, 2.0)
    assert str(info.value).startswith(__file__), str(info.value)
    np.testing.assert_array_equal(x, before)
    # (what the loop does: it changes the caller's array)
    changed = x.copy()
    loop(f, changed, 2.0)
    assert not np.array_equal(changed, before)


def test_vmap_refuses_it_on_tensors():
    x = torch.arange(6.).reshape(2, 3)
    with pytest.raises(VectorizeError, match="row of the caller's argument"):
        vmap(bump, in_dims=(0, None))(x, 2.0)
    assert torch.equal(x, torch.arange(6.).reshape(2, 3))


@pytest.mark.parametrize("f", [bump_copy, bump_new])
def test_vmap_computes_where_the_parameter_is_its_own_array(f):
    x = np.arange(6.).reshape(2, 3)
    before = x.copy()
    expected = loop(f, x.copy(), 2.0)
    np.testing.assert_array_equal(vmap(f, in_axes=(0, None))(x, 2.0), expected)
    np.testing.assert_array_equal(x, before)


def test_vmap_refuses_a_rebinding_on_some_lanes_only():
    with pytest.raises(VectorizeError, match="row of the caller's argument"):
        vmap(bump_in_branch, in_axes=(0, 0))(np.arange(6.).reshape(2, 3),
                                             np.array([1.0, -1.0]))


def test_vmap_of_numbers_still_rebinds():
    # per example a NumPy scalar: `x += y` makes a new number, as the batch does
    x = np.arange(3.)
    np.testing.assert_array_equal(vmap(bump)(x, np.ones(3)), x + 1)
    np.testing.assert_array_equal(x, np.arange(3.))


def test_vectorize_with_a_signature_raises_as_numpy_vectorize():
    x, y = np.arange(6.).reshape(2, 3), np.ones(3)
    with pytest.raises(ValueError, match="read-only"):
        np.vectorize(bump, signature="(n),(n)->(n)")(x, y)
    with pytest.raises(VectorizeError, match="row of the caller's argument"):
        vectorize(bump, signature="(n),(n)->(n)", fallback="error")(x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="read-only"):
            vectorize(bump, signature="(n),(n)->(n)")(x, y)
    np.testing.assert_array_equal(x, np.arange(6.).reshape(2, 3))
    # its own copy: computed
    expected = np.vectorize(bump_copy, signature="(n),(n)->(n)")(x, y)
    np.testing.assert_array_equal(
        vectorize(bump_copy, signature="(n),(n)->(n)", fallback="error")(x, y), expected)


def test_vectorize_of_numbers_still_rebinds():
    x = np.arange(3.)
    np.testing.assert_array_equal(vectorize(bump, fallback="error")(x, np.ones(3)),
                                  np.vectorize(bump)(x, np.ones(3)))
    np.testing.assert_array_equal(x, np.arange(3.))
