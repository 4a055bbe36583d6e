"""Every corpus function, vectorized with ``fallback="error"``, against the per-example loop.

Arguments are drawn by hypothesis: each one is a batched 1-D array (empty batches included),
a Python scalar, a NumPy scalar, or a lower-rank array that broadcasts against the others
(shapes such as ``(3, 1)`` with ``(4,)``); float values include NaN, +-inf, +-0.0, huge and
subnormal numbers.

Warnings: `assert_matches_loop` turns RuntimeWarnings of the vectorized call into errors. That
is only fair when the per-example loop itself is silent, so for inputs on which the scalar code
warns (``inf - inf``, ``x / 0``...) the comparison runs with floating-point warnings ignored;
everywhere else a warning from the vectorized code (from lanes it should have thrown away, for
instance) is a failure. Lanes where the scalar code raises are skipped by the helper; when no
lane has a value (all raise, or the batch is empty) the vectorized call may raise what the
user's own operation raises.

Known engine bugs are kept as strict xfails; their minimal inputs run first (`KNOWN_BUGS`),
so the xfail does not depend on hypothesis finding them again. When a bug is fixed the test
XPASSes, which fails the run: then delete its entry.
"""

from __future__ import annotations

import math
import traceback
import warnings

import numpy as np
import pytest
from corpus import CORPUS
from differential import assert_matches_loop
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from vectorize.errors import VectorizeError

MAX_EXAMPLES = 20

SPECIAL_FLOATS = [0.0, -0.0, math.nan, math.inf, -math.inf, 1.0, -1.0, 0.5, -2.5, 1e308,
                  -1e308, 5e-324, -5e-324, 2.2250738585072014e-308, 1e-300, 3.0, 20.0, 1e16]
SPECIAL_FLOAT32 = [0.0, -0.0, math.nan, math.inf, -math.inf, 1.0, -1.0, 0.5, -2.5, 3e38, -3e38,
                   1e-45, 1e-38, 3.0, 0.1]


def _elements(kind):
    if kind == "f":
        return st.one_of(st.sampled_from(SPECIAL_FLOATS), st.floats(-50, 50),
                         st.floats(allow_nan=True, allow_infinity=True))
    if kind == "fm":
        return st.one_of(st.sampled_from([0.0, -0.0, 0.5, -0.5, 1.5, -2.5, math.nan, math.inf,
                                          -math.inf, 1e9, -1e9]),
                         st.floats(-1e9, 1e9))
    if kind == "f32":
        return st.one_of(st.sampled_from(SPECIAL_FLOAT32), st.floats(-50, 50, width=32),
                         st.floats(width=32))
    if kind == "i":
        return st.one_of(st.sampled_from([0, 1, -1, 2, -2, 3, 15, -15, 100, 400, -400, 1900,
                                          2000]),
                         st.integers(-10**5, 10**5))
    if kind == "b":
        return st.booleans()
    raise ValueError(kind)


DTYPES = {"f": np.float64, "fm": np.float64, "f32": np.float32, "i": np.int64, "b": np.bool_}
PYTHON_TYPES = {"f": float, "fm": float, "f32": float, "i": int, "b": bool}

# Batch layouts: a 1-D batch of any length (0 included), or a 2-D batch (3, 4) that
# arguments reach by broadcasting from lower-rank arrays.
SHAPES_2D = [(3, 1), (4,), (3, 4), (1, 4), (1,)]


@st.composite
def call_args(draw, kinds):
    layout = draw(st.sampled_from(["1d", "1d", "2d"]))
    n = draw(st.integers(0, 6))
    args = []
    for kind in kinds:
        if kind == "n":
            args.append(draw(st.integers(0, 5)))
            continue
        mode = draw(st.sampled_from(["array", "array", "python", "numpy"]))
        if mode == "array":
            shape = (n,) if layout == "1d" else draw(st.sampled_from(SHAPES_2D))
            args.append(draw(arrays(DTYPES[kind], shape, elements=_elements(kind))))
        else:
            value = draw(_elements(kind))
            if mode == "python":
                args.append(PYTHON_TYPES[kind](value))
            else:
                args.append(DTYPES[kind](value))
    return args


SCALAR_ERRORS = (ArithmeticError, ValueError, TypeError, OverflowError)


def _scalar_profile(f, args):
    """(whether the per-example loop warns on some lane, its number of lanes, how many of
    them raise), running it as `loop_reference` does."""
    arrays_ = np.broadcast_arrays(*[np.asarray(a) for a in args])
    shape = arrays_[0].shape if arrays_ else ()
    size = int(np.prod(shape)) if shape else 1
    raised = 0
    flat = [a.reshape(-1) if a.ndim else a for a in arrays_]    # (once: a broadcast copies)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for lane in range(size):
            call = [a[lane] if a.ndim else a[()] for a in flat]
            try:
                f(*call)
            except SCALAR_ERRORS:
                raised += 1
    warns = any(issubclass(w.category, RuntimeWarning) for w in caught)
    return warns, size, raised


def _compare(f, args):
    warns, size, raised = _scalar_profile(f, args)
    try:
        # An empty batch runs no example at all, yet the vectorized code still evaluates its
        # unbatched part once (1e308 * 1e308 with no lanes): warnings are not compared there.
        if warns or raised or size == 0:
            with np.errstate(all="ignore"):
                assert_matches_loop(f, *args)
        else:
            assert_matches_loop(f, *args)
    except VectorizeError as exc:
        # a NumPy scalar whose promotion with the examples' Python numbers differs from the
        # arrays' (np.float32 and a Python float): refused, numpy.vectorize runs (test_trust)
        if "NEP 50" not in str(exc):
            raise
    except SCALAR_ERRORS as exc:
        # No lane has a value (every lane raises, or the batch is empty): the vectorized code
        # may raise what the scalar code raises, from the user's own operation.
        origin = traceback.extract_tb(exc.__traceback__)[-1].filename
        if raised == size and origin.startswith("<vectorize:"):
            return
        raise


def check(f, *args):
    """`assert_matches_loop`, with every failure re-raised from one of four fixed places
    (mismatch, warning, rejection, internal error): generated code lives in a fresh pseudo-file per
    call, which hypothesis would otherwise read as a different (flaky) failure each replay."""
    failure = None
    try:
        _compare(f, args)
    except Exception as exc:  # noqa: BLE001 - re-raised below without the moving traceback
        where = traceback.extract_tb(exc.__traceback__)[-1]
        failure = (type(exc), f"{type(exc).__name__}: {exc}\n  at {where.filename}:"
                              f"{where.lineno}: {where.line}")
    if failure is None:
        return
    kind, message = failure
    if issubclass(kind, AssertionError):
        raise AssertionError("vectorized result differs from the loop: " + message)
    if issubclass(kind, Warning):
        raise AssertionError("vectorized code warned where the loop is silent: " + message)
    if issubclass(kind, VectorizeError):
        raise AssertionError("engine rejected the function: " + message)
    raise AssertionError("engine raised: " + message)


# name -> (reason, [minimal argument tuples that show the bug]); each is a strict xfail.
KNOWN_BUGS: dict[str, tuple[str, list[tuple]]] = {
    "snap_to_target": (
        "documented divergence (docs/semantics.md): math.isclose(inf, inf) is computed with "
        "inf - inf, which NumPy warns about where math.isclose is silent",
        [(np.array([np.inf]), np.array([np.inf]))]),
    "power_and_fmod": (
        "documented divergence (docs/semantics.md): NumPy warns on overflow where Python's "
        "math is silent (math.degrees(1e308) is a quiet inf)",
        [(np.array([0.0]), np.array([1e308]))]),
}


def _params():
    out = []
    for func, kinds in CORPUS.items():
        marks = []
        if func.__name__ in KNOWN_BUGS:
            reason = KNOWN_BUGS[func.__name__][0]
            marks.append(pytest.mark.xfail(strict=True, reason=reason))
        out.append(pytest.param(func, kinds, id=func.__name__, marks=marks))
    return out


def test_corpus_is_large_enough():
    assert len(CORPUS) >= 34
    for func, kinds in CORPUS.items():
        assert func.__code__.co_argcount == len(kinds), func.__name__


@pytest.mark.parametrize("func, kinds", _params())
def test_matches_loop(func, kinds):
    for args in KNOWN_BUGS.get(func.__name__, ("", []))[1]:
        check(func, *args)

    @settings(max_examples=MAX_EXAMPLES, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(call_args(kinds))
    def run(args):
        check(func, *args)

    run()
