"""The generator of the constructs the other fuzzers emit only flat or not at all
(`benchmarks/fuzz_gaps35.py`: ``match`` with guards, walrus ``while``, ``for ... else``,
closures and lambdas passed to helpers, comprehensions with per-example conditions,
string-keyed tables, complex numbers, narrow int dtypes, helpers rebound between calls) on a
fixed seed range, and the bugs its runs found, each as its minimized program against
numpy.vectorize and the per-example loop."""

from __future__ import annotations

import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

from vectorize import vectorize, vmap

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import fuzz_gaps35  # noqa: E402


def _load(tmp_path, name: str, source: str):
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    sys.path.insert(0, str(tmp_path))
    try:
        module = __import__(name)
    finally:
        sys.path.remove(str(tmp_path))
    return module


def _reference(f, *args):
    try:
        return np.vectorize(f)(*args), None
    except Exception as exc:  # noqa: BLE001 -- compared by type
        return None, type(exc)


def _ours(wrapped, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return wrapped(*args), None
        except Exception as exc:  # noqa: BLE001 -- compared by type
            return None, type(exc)


def _loop(f, *args):
    try:
        return np.stack([f(*(a[i] for a in args)) for i in range(len(args[0]))]), None
    except Exception as exc:  # noqa: BLE001 -- compared by type
        return None, type(exc)


def _assert_same(got, exp, dtype=True):
    (g, gerr), (e, eerr) = got, exp
    assert gerr is eerr, (g, gerr, e, eerr)
    if eerr is None:
        np.testing.assert_array_equal(g, e)
        if dtype:
            assert np.asarray(g).dtype == np.asarray(e).dtype


def test_generated_programs(tmp_path):
    """A fixed seed range through both ways in: nothing wrong, no internal error."""
    lines = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        counts, _, bugs = fuzz_gaps35.run(range(SEEDS[0], SEEDS[1]), ["vectorize", "vmap"],
                                          minimize=False, out=lines.append)
    assert not bugs, "\n".join(lines)
    assert counts[("vectorize", "ok")] + counts[("vmap", "ok")] >= 2, counts


SEEDS = (0, 12)


def test_the_generator_is_reproducible():
    assert fuzz_gaps35.source(5) == fuzz_gaps35.source(5)
    text = "".join(fuzz_gaps35.source(s) for s in range(80))
    for construct in ("match ", "case ", " if ", ":= ", "else:", "while True:", "lambda ",
                      "complex(", "KEYS[k % 3]", "hr(", "try:", "for j"):
        assert construct in text, construct


# ------------------------------------------------------------------ regressions
RANGE_OF_A_CHANGED_NAME = """
def count_down(x, n):
    m = n
    for j in range(m):
        m -= 1
        if x > 100.0:
            break
    return m


def count_down_plain(x, n):
    m = n
    for j in range(m % 4):
        m -= 3
    return m


def bound_of_the_target(x, n):
    j = n
    t = 0.0
    for j in range(j + 1):
        t += x
    return t


def loop_else(x, n):
    m = n
    for j in range(m % 4):
        m -= 3
        if j == 7:
            break
    else:
        if x > 2.0:
            raise ValueError("bad example")
    return m
"""


@pytest.mark.parametrize("name", ["count_down", "count_down_plain", "bound_of_the_target",
                                  "loop_else"])
def test_a_per_example_range_is_evaluated_once(tmp_path, name):
    """fuzz_gaps35 seed 73: ``for j in range(m % 4):`` whose body changes ``m``: Python
    evaluates the range once, the masked loop tested ``j < m % 4`` against the changed ``m``
    every pass (``count_down`` of 5 gave 2, not 0; the loop ``else`` then never raised)."""
    f = getattr(_load(tmp_path, f"range_once_{name}", RANGE_OF_A_CHANGED_NAME), name)
    x = np.array([3.0, 3.0, -1.0, 0.5, 3.0])
    n = np.array([5, 1, 7, 0, 2], dtype=np.int64)
    _assert_same(_ours(vectorize(f, fallback="error"), x, n), _reference(f, x, n))
    _assert_same(_ours(vmap(f), x, n), _loop(f, x, n), dtype=False)
    x2 = np.array([1.0, -1.0])
    _assert_same(_ours(vectorize(f, fallback="error"), x2, n[:2]), _reference(f, x2, n[:2]))


NARROW_INT_IN_A_LOOP = """
def minus_in_a_loop(n):
    m = n
    for j in range(3):
        m -= 128
    return m


def helper_constant_in_a_loop(n):
    m = n * 2
    for j in range(3):
        m -= abs(0 - 128)
    return m


def fits(n):
    m = n
    for j in range(3):
        m -= 100
    return m


def divmod_in_a_loop(n):
    m = n * 2
    for t in (1.0, 2.0):
        m, m = divmod(m, -3)
    return m


def divmod_item_in_a_loop(n):
    m = n
    for t in range(2):
        m = divmod(m, -3)[0]
    return m
"""


@pytest.mark.parametrize("name", ["minus_in_a_loop", "helper_constant_in_a_loop", "fits",
                                  "divmod_in_a_loop", "divmod_item_in_a_loop"])
@pytest.mark.parametrize("dtype", ["int8", "uint16"])
def test_vmap_python_int_beyond_a_narrow_int_in_a_loop(tmp_path, name, dtype):
    """fuzz_gaps35 seeds 673 and 1041: ``m -= 128`` of an int8 ``m`` (``divmod(m, -3)`` of
    a uint16 ``m``) in a loop under ``vmap``: the per-example loop raises OverflowError
    (NEP 50: 128 is out of bounds for int8); the analysis learnt the type of ``m - 128``
    from an int64 128 (of ``divmod`` from Python ints), widened ``m`` to int64 before the
    loop and returned -383 silently."""
    f = getattr(_load(tmp_path, f"narrow_loop_{name}_{dtype}", NARROW_INT_IN_A_LOOP), name)
    n = np.array([1, 2, 5], dtype=dtype)
    got, exp = _ours(vmap(f), n), _loop(f, n)
    _assert_same(got, exp)


GLOBAL_IN_A_COMPREHENSION = """
TABLE = (1.5, -2.0, 3.0)


def filtered(x, k):
    return complex(x, max([t for t in TABLE if t != k] + [0.0])).real


def filtered_local(x, k):
    r = float(k)
    return complex(x, max([t - 0.5 for t in TABLE if t != r] + [0.0])).real
"""


@pytest.mark.parametrize("name", ["filtered", "filtered_local"])
def test_a_module_table_read_in_a_comprehension_is_bound(tmp_path, name):
    """fuzz_gaps35 seed 830: ``[t for t in TABLE if t != k]`` over shared values, which the
    generated code keeps as it is: ``TABLE`` was not among the code's free names, so the
    batched code raised NameError (a warned fallback to the loop; at N = 0 under ``vmap`` the
    NameError itself)."""
    import vectorize as vz

    f = getattr(_load(tmp_path, f"comp_global_{name}", GLOBAL_IN_A_COMPREHENSION), name)
    x = np.array([0.5, -1.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error", vz.VectorizeWarning)
        got = vmap(f, in_axes=(0, None))(x, 1)
        np.testing.assert_array_equal(got, np.stack([f(v, 1) for v in x]))
        empty = vmap(f, in_axes=(0, None))(np.zeros(0), 1)
        assert empty.shape == (0,)
        got = vectorize(f, fallback="error")(x, 1)
        np.testing.assert_array_equal(got, np.vectorize(f)(x, 1))
