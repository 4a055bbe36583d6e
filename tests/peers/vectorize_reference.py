"""The harness of the ported `numpy.vectorize` / `jnp.vectorize` peer tests.

A case is a function of one argument, ``vec``: a stand-in for ``numpy.vectorize`` (called
as ``vec(pyfunc, **options)`` or as a decorator, bare or with options). It builds what the
peer test builds and returns whatever the peer test looks at (results, call counts,
attributes), or raises. `outcome` runs it three ways:

- with ``numpy.vectorize`` itself: the reference;
- with our ``vectorize(..., fallback="loop")``: must give exactly the reference (the same
  result types, dtypes, shapes and values, or the same exception type);
- with our ``vectorize(..., fallback="error")``: must give exactly the reference too, or be
  refused with a `VectorizeError` located in the user's source (only the refusal of a
  function that has no Python source, a ufunc or a builtin, names no file).

It returns "pass" or "refused"; a different answer fails the assertion.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np

from vectorize import VectorizeError, vectorize


def _maker(**fixed):
    @functools.wraps(vectorize)
    def vec(pyfunc=np._NoValue, *args, **options):
        return vectorize(pyfunc, *args, **options, **fixed)
    return vec


def run(case, vec):
    """("value", result) or ("raises", exception type, message)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return ("value", case(vec))
        except VectorizeError:
            raise
        except Exception as exc:  # noqa: BLE001 -- the outcome compared with the reference
            return ("raises", type(exc), str(exc))


def assert_same(got, expected, path="result"):
    """Equal results: the same Python types (a NumPy scalar is not a 0-d array, an ndarray
    subclass is kept), dtypes, shapes and values (floats to 1e-12 relative, NaN equal to
    NaN)."""
    assert type(got) is type(expected), f"{path}: {type(got)} != {type(expected)}"
    if isinstance(expected, (tuple, list)):
        assert len(got) == len(expected), f"{path}: length {len(got)} != {len(expected)}"
        for i, (g, e) in enumerate(zip(got, expected)):
            assert_same(g, e, f"{path}[{i}]")
    elif isinstance(expected, dict):
        assert got.keys() == expected.keys(), path
        for k in expected:
            assert_same(got[k], expected[k], f"{path}[{k!r}]")
    elif isinstance(expected, (np.ndarray, np.generic)):
        assert got.dtype == expected.dtype, f"{path}: dtype {got.dtype} != {expected.dtype}"
        assert np.shape(got) == np.shape(expected), f"{path}: {np.shape(got)} != " \
                                                    f"{np.shape(expected)}"
        if expected.dtype == object:
            for g, e in zip(np.ravel(got), np.ravel(expected)):
                assert_same(g, e, f"{path} item")
        elif expected.dtype.kind in "fc":
            # (a batched product or reduction may differ from the per-example one in the last
            # bits: docs/semantics.md)
            np.testing.assert_allclose(np.asarray(got), np.asarray(expected), rtol=1e-12,
                                       atol=1e-15, equal_nan=True, err_msg=path)
        else:
            np.testing.assert_array_equal(np.asarray(got), np.asarray(expected), err_msg=path)
    elif isinstance(expected, float) and expected != expected:
        assert got != got, path
    else:
        assert got == expected, f"{path}: {got!r} != {expected!r}"


def _same_outcome(got, expected, how):
    if expected[0] == "raises":
        assert got[0] == "raises", f"{how}: returned {got[1]!r} where numpy.vectorize raises " \
                                   f"{expected[1].__name__}: {expected[2]}"
        assert got[1] is expected[1], \
            f"{how}: raised {got[1].__name__}: {got[2]} where numpy.vectorize raises " \
            f"{expected[1].__name__}: {expected[2]}"
    else:
        assert got[0] == "value", f"{how}: raised {got[1].__name__}: {got[2]} where " \
                                  "numpy.vectorize returns"
        assert_same(got[1], expected[1], how)


def outcome(case) -> str:
    """"pass" or "refused" (see the module's docstring); an AssertionError when ours differs."""
    expected = run(case, np.vectorize)
    _same_outcome(run(case, _maker(fallback="loop")), expected, "fallback='loop'")
    try:
        got = run(case, _maker(fallback="error"))
    except VectorizeError as exc:
        # only a function with no Python source (a ufunc, a builtin) has no file to name
        assert exc.filename != "<unknown>" or "no source" in exc.reason \
            or "not a Python function with source" in exc.reason, str(exc)
        assert str(exc).startswith(f"{exc.filename}:{exc.line}:"), str(exc)
        return "refused"
    _same_outcome(got, expected, "fallback='error'")
    return "pass"


def case_table():
    """An empty table of cases and the decorator ``@case(name)`` that adds a function to it."""
    cases: dict = {}

    def case(name):
        def register(fn):
            cases[name] = fn
            return fn
        return register
    return cases, case


def report(cases, width=200):
    """Print each case's outcome (pass / refused / WRONG / CRASH) and the counts."""
    import collections
    counts = collections.Counter()
    for name, fn in cases.items():
        try:
            result = outcome(fn)
        except AssertionError as exc:
            result = f"WRONG {exc}"
        except Exception as exc:  # noqa: BLE001
            result = f"CRASH {type(exc).__name__}: {exc}"
        counts[result.split()[0]] += 1
        print(f"{result[:width]:30} {name}")
    print(dict(counts), "of", len(cases))
