"""The real-code-shaped generator (`benchmarks/fuzz_gen33.py`: helpers calling helpers, tuples,
early returns, while/break/continue, per-example ranges, try/except, raise, math and builtins,
narrow dtypes) on a few fixed seeds, and the bugs its runs found, each as its minimized
program against the per-example loop."""

from __future__ import annotations

import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

from vectorize import VectorizeError, vectorize, vmap

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import fuzz_gen33  # noqa: E402

SEEDS = [0, 2, 4]


@pytest.mark.parametrize("api", ["vectorize", "vmap"])
def test_generated_programs(tmp_path, api):
    kinds = {}
    for seed in SEEDS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            status, detail = fuzz_gen33.check(fuzz_gen33.source(seed), seed, tmp_path, api,
                                              "numpy", f"gen33_test_{api}_{seed}")
        kinds[status] = kinds.get(status, 0) + 1
        assert status in ("ok", "vacuous", "rejected"), f"seed {seed}: {status}: {detail}"
    assert kinds.get("ok", 0) >= 1, kinds


def test_the_generator_is_reproducible():
    assert fuzz_gen33.source(11) == fuzz_gen33.source(11)
    text = "".join(fuzz_gen33.source(s) for s in range(60))
    for construct in ("def h0(", "while (", "for i", "try:", "raise ValueError", "elif ",
                      "TABLE[", "% 5)"):
        assert construct in text, construct


def _load(tmp_path, name: str, source: str):
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    sys.path.insert(0, str(tmp_path))
    try:
        module = __import__(name)
    finally:
        sys.path.remove(str(tmp_path))
    return module


def test_vmap_math_log_in_a_helper_of_a_shared_argument(tmp_path):
    """fuzz_gen33 seed 23: a helper's ``math.log(a)`` of a shared argument (the same Python
    number on every example) raises ValueError per example for ``a = 0``; the helper's
    batched body computed ``np.log(0)`` (-inf) with no check, as though Python ran it."""
    module = _load(tmp_path, "fuzz33_log_helper", """
        import math


        def h0(a):
            return math.log(a)


        def f(x, k):
            return h0(k) + x
        """)
    x = np.array([1.0, 0.0])
    with pytest.raises(ValueError) as caught:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            vmap(module.f, in_axes=(0, None))(x, 0)
    # the loop raises ValueError; a located refusal is also right, never -inf
    assert isinstance(caught.value, VectorizeError) or "math domain" in str(caught.value)
    np.testing.assert_array_equal(vmap(module.f, in_axes=(0, None))(x, 2),
                                  [module.f(v, 2) for v in x])


ISCLOSE = """
    import math


    def f(x, y):
        return math.isclose(x, y)


    def h0(a):
        c = 0
        while math.isclose(a, a) and c < 6:
            c += 1
        return c


    def g(x):
        return h0(x) + 0.5
    """


def test_math_isclose_of_ints_beyond_the_double_difference(tmp_path):
    """``math.isclose(2**62, -2**62)`` is False (Python takes both as doubles); the batched
    ``np.abs(a - b)`` of int64 wrapped to -2**63, below every tolerance: True."""
    module = _load(tmp_path, "fuzz33_isclose_ints", ISCLOSE)
    a = np.array([2**62, -2**62, 3, 2**53 + 1])
    b = np.array([-2**62, -2**62, 3, 2**53])
    want = np.vectorize(module.f)(a, b)
    got = vectorize(module.f, fallback="error")(a, b)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(vmap(module.f)(a, b), [module.f(u, v) for u, v in zip(a, b)])


def test_math_isclose_of_bools_in_a_helper_loop(tmp_path):
    """fuzz_gen33 seed 27: ``math.isclose(a, a)`` of a bool argument in a helper's ``while``
    wrote ``a - a`` of bools, which NumPy refuses (TypeError); at N=0 ``vmap`` raised it."""
    module = _load(tmp_path, "fuzz33_isclose_bools", ISCLOSE)
    for n in (0, 3):
        x = np.array([True, False, True], dtype=bool)[:n]
        np.testing.assert_array_equal(vmap(module.g)(x), [module.g(v) for v in x])
        np.testing.assert_array_equal(vmap(module.f)(x, ~x), [module.f(u, v) for u, v in
                                                              zip(x, ~x)])
        if n:
            np.testing.assert_array_equal(vectorize(module.g, fallback="error")(x),
                                          np.vectorize(module.g)(x))


def test_vmap_math_log_of_a_shared_float_in_a_condition(tmp_path):
    """fuzz_gen33 seed 247: ``if math.log(r) == ...`` of a shared ``r`` (the same Python
    number on every example) raises ValueError for ``r = 0.0``; the condition's batched form
    computed ``np.log(r)`` (-inf) with no check, and the function returned."""
    module = _load(tmp_path, "fuzz33_log_condition", """
        import math


        def h(x, r):
            if math.log(r) == 3.0:
                raise ValueError('bad example')
            return x
        """)
    x = np.array([1.0, 2.0])
    with pytest.raises(ValueError) as caught:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            vmap(module.h, in_axes=(0, None))(x, 0.0)
    assert isinstance(caught.value, VectorizeError) or "math domain" in str(caught.value)
    np.testing.assert_array_equal(vmap(module.h, in_axes=(0, None))(x, 1.0), x)


def test_a_test_calling_a_helper_that_raises_on_some_examples(tmp_path):
    """fuzz_gen33 seed 53: ``if h0(x, False) < h0(k, 0.0):`` where ``h0`` returns 5 on every
    path that returns but raises ValueError on examples whose loop runs: the test was
    'known exactly' (5 < 5) and the whole ``if`` dropped, calls included; both APIs
    returned ``y`` where the loop raises."""
    module = _load(tmp_path, "fuzz33_helper_test", """
        def h0(a, b):
            for i1 in range(int(a) % 5):
                if i1 < 2.5 or b:
                    raise ValueError('bad example')
            return 5


        def f(x, y, k):
            if h0(x, False) < h0(k, 0.0):
                y = y + 1
            return y
        """)
    y = np.array([1.0, 2.0])
    raising, quiet = np.array([0.5, 2.0]), np.array([0.5, 0.25])
    with pytest.raises(ValueError, match="bad example"):
        np.vectorize(module.f)(raising, y, 0)
    with pytest.raises(ValueError, match="bad example"):
        vectorize(module.f, fallback="error")(raising, y, 0)
    with pytest.raises(ValueError, match="bad example"):
        vmap(module.f, in_axes=(0, 0, None))(raising, y, 0)
    want = np.vectorize(module.f)(quiet, y, 0)
    got = vectorize(module.f, fallback="error")(quiet, y, 0)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(vmap(module.f, in_axes=(0, 0, None))(quiet, y, 0), y)


def test_augmented_comparison_operand_in_a_compacted_loop(tmp_path):
    """fuzz_gen33 seed 585: ``r %= x > y`` in a per-example ``for`` loop: the compacted
    loop's idle-pass blend rendered ``r_lanes % x_lanes > y_lanes`` (the comparison's
    parentheses lost), a comparison where the loop computes a remainder: 0.0 where the
    example's ``3.0 % False`` is nan."""
    module = _load(tmp_path, "fuzz33_aug_compare", """
        def f(x, y):
            r = x
            for i in range(int(y) % 5):
                r %= x > y
            return r
        """)
    x, y = np.array([2.0, 3.0, 6.0]), np.array([2.5, 3.0, 2.5])
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        want = np.array([module.f(a, b) for a, b in zip(x, y)])
        np.testing.assert_array_equal(vmap(module.f)(x, y), want)
