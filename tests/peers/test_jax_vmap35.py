"""JAX's vmap tests of ``tests/api_test.py`` that ``test_jax_vmap.py`` and
``test_jax_batching29.py`` do not port: ``test_vmap_inconsistent_sizes_constructs_proper_
error_message_kwargs`` (jax-ml/jax#24406), in NumPy.

JAX maps keyword arguments along axis 0; ours passes them as they are (as ``torch.func``
does: README.md, "keyword arguments passed as they are (as `torch.func`)"), so the peer's
call, whose keyword arguments have different lengths, computes here: a strict xfail, and
the answer checked against the per-example loop with the keyword arguments unmapped.

Not ported (JAX machinery): ``test_vmap_traceback`` (the depth of JAX's own frames),
``test_dce_sink_vmap`` and ``test_vmap_make_jaxpr_close_over_tracer`` (jaxprs),
``test_leak_checker_reference_chain`` (the tracer leak checker), and the ``jit`` / ``pmap``
/ ``remat`` / named-axis ones.
"""

from __future__ import annotations

import numpy as np
import pytest

from vectorize import vmap


def f(x1, x2, a3):
    return x1 + x2 + a3


@pytest.mark.xfail(strict=True, raises=pytest.fail.Exception,
                   reason="keyword arguments are passed as they are (torch.func), not mapped "
                          "along axis 0 (JAX): README.md, vmap")
def test_vmap_inconsistent_sizes_constructs_proper_error_message_kwargs():
    with pytest.raises(ValueError, match="vmap got inconsistent sizes for array axes to be "
                                         "mapped"):
        vmap(f)(np.ones(2, dtype=np.float32), a3=np.ones(1, dtype=np.float32),
                x2=np.ones(2, dtype=np.float32))


def test_keyword_arguments_are_passed_as_they_are():
    x1, x2, a3 = np.arange(2, dtype=np.float32), np.ones(2, np.float32), np.ones(1, np.float32)
    got = vmap(f)(x1, a3=a3, x2=x2)
    expected = np.stack([f(x1[i], a3=a3, x2=x2) for i in range(2)])
    assert got.dtype == expected.dtype and got.shape == expected.shape == (2, 2)
    np.testing.assert_array_equal(got, expected)
    # mapped by position, the peer's sizes are inconsistent
    with pytest.raises(ValueError, match="inconsistent sizes"):
        vmap(f)(np.ones(2, np.float32), np.ones(2, np.float32), np.ones(1, np.float32))
