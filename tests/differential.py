"""The reference every test compares against: the per-example loop over NumPy scalars, and
numpy.vectorize itself where it raises.

``loop_reference(f, *args)`` runs ``f`` once per example exactly as ``numpy.vectorize``
would hand it the example (NumPy scalars from the broadcast arguments) and stacks the results
with ``np.array``; lanes where the scalar code raises are reported, not guessed.
``assert_matches_loop(f, *args)`` checks ``vectorize(f, fallback="error")`` against it:
same shape, same dtype kind, equal values (NaN equal to NaN, floats to 1e-12 relative).
"""

from __future__ import annotations

import warnings

import numpy as np

from vectorize import vectorize

RTOL = 1e-12


def outcome(call):
    """``(call(), None)``, or ``(None, the exception)`` where it raises; warnings and NumPy's
    floating-point errors silenced (what a comparison of results and exception types needs)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return call(), None
        except Exception as exc:  # noqa: BLE001 -- the type is compared
            return None, exc


def check_like_numpy_vectorize(func, *args, sizes=(None, 0, 1)):
    """``vectorize(func, fallback="error")`` against ``numpy.vectorize(func)`` on ``args``
    (``None`` in ``sizes``) and on their first ``n`` items for each other ``n``: equal values
    and dtype, or the same exception type; a `VectorizeError` of ours is raised as it is. On
    0 items (numpy.vectorize refuses an empty batch without otypes) ours raises or returns an
    empty batch."""
    from vectorize import VectorizeError
    ours = vectorize(func, fallback="error")
    for n in sizes:
        part = args if n is None else tuple(a[:n] for a in args)
        want, error = outcome(lambda part=part: np.vectorize(func)(*part))
        got, our_error = outcome(lambda part=part: ours(*part))
        if isinstance(our_error, VectorizeError):
            raise our_error
        if n == 0:
            assert our_error is not None or got.shape == (0,), (our_error, got)
            continue
        if error is not None:
            assert our_error is not None and type(our_error) is type(error), (
                n, error, our_error, got)
            continue
        assert our_error is None, (n, our_error)
        assert got.dtype == want.dtype, (n, got.dtype, want.dtype)
        assert_values_equal(got, want)


def outcome_as_numpy_warns(call):
    """``(call(), None)``, or ``(None, the exception)`` where it raises; warnings ignored
    but NumPy's floating-point error state left as it is, so that a function that raises
    warnings as errors (``warnings.simplefilter("error")``) still takes its handlers."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # (the batch's own float warnings)
            return call(), None
    except Exception as e:      # noqa: BLE001 (the exception's type is compared)
        return None, e


def check_exactly(f, *args, signature=None, refusal_fails=False):
    """``vectorize(f, fallback="error")`` against ``numpy.vectorize(f)`` on ``args`` (with
    ``otypes=[np.float64]`` for an empty batch, which numpy.vectorize needs): the same
    exception type, or the same dtype, shape and values. ``refusal_fails``: a
    `VectorizeError` of ours fails first, as itself."""
    from vectorize import VectorizeError
    options = {} if np.size(args[0]) else {"otypes": [np.float64]}
    if signature is not None:
        options["signature"] = signature
    expected, exc = outcome_as_numpy_warns(lambda: np.vectorize(f, **options)(*args))
    got, got_exc = outcome_as_numpy_warns(
        lambda: vectorize(f, fallback="error", **options)(*args))
    if refusal_fails:
        assert not isinstance(got_exc, VectorizeError), got_exc
    assert type(got_exc) is type(exc), (got_exc, exc)
    if exc is None:
        assert got.dtype == expected.dtype and got.shape == expected.shape, (got, expected)
        np.testing.assert_array_equal(got, expected)


def check_vmap_exactly(f, *args, refusal_fails=False):
    """``vmap(f)`` against the loop of ``f`` over the rows of ``args`` stacked: the same
    exception type, or equal arrays (no comparison where the loop has no rows)."""
    from vectorize import VectorizeError, vmap

    def loop():
        rows = [np.asarray(f(*a)) for a in zip(*args)]
        return np.stack(rows) if rows else None
    expected, exc = outcome_as_numpy_warns(loop)
    got, got_exc = outcome_as_numpy_warns(lambda: vmap(f)(*args))
    if refusal_fails:
        assert not isinstance(got_exc, VectorizeError), got_exc
    assert type(got_exc) is type(exc), (got_exc, exc)
    if exc is None and expected is not None:
        np.testing.assert_array_equal(got, expected)


def loop_stacked(f, *args, shared=()):
    """The `vmap` reference: ``f`` on each NumPy scalar (row) of the mapped ``args``
    (``shared`` passed as they are), the results stacked by ``np.stack`` (item by item for a
    tuple or a dict)."""
    outs = [f(*row, *shared) for row in zip(*args)]
    if isinstance(outs[0], tuple):
        return tuple(np.stack([np.asarray(o[k]) for o in outs]) for k in range(len(outs[0])))
    if isinstance(outs[0], dict):
        return {k: np.stack([np.asarray(o[k]) for o in outs]) for k in outs[0]}
    return np.stack([np.asarray(o) for o in outs])


def assert_same_stacked(got, want, signed_zeros=False) -> None:
    """``got`` equals the `loop_stacked` result ``want``: the same tuple or dict structure,
    and per array the same dtype, shape and values (``signed_zeros``: and the signs of its
    finite floats)."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            assert_same_stacked(g, w, signed_zeros)
        return
    if isinstance(want, dict):
        assert isinstance(got, dict) and got.keys() == want.keys()
        for k in want:
            assert_same_stacked(got[k], want[k], signed_zeros)
        return
    got = np.asarray(got)
    assert got.dtype == want.dtype, (got, want)
    assert got.shape == want.shape, (got, want)
    np.testing.assert_array_equal(got, want)
    if signed_zeros:
        assert np.array_equal(np.signbit(got[np.isfinite(got)]) if got.dtype.kind == "f"
                              else got, np.signbit(want[np.isfinite(want)])
                              if want.dtype.kind == "f" else want)


def loop_reference(f, *args, excluded=()):
    """(results per lane as a list, broadcast shape, indices of lanes that raised)."""
    batched = [i for i in range(len(args)) if i not in excluded]
    arrays = np.broadcast_arrays(*[np.asarray(args[i]) for i in batched]) if batched else []
    shape = arrays[0].shape if arrays else ()
    size = int(np.prod(shape)) if shape else 1
    results, raised = [], []
    flat = [arr.reshape(-1) if arr.ndim else arr for arr in arrays]
    # (the warning filters and NumPy's error state are set once around the lanes: entering
    # them per lane took 20 times the calls of a small function)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for lane in range(size):
            call = list(args)
            for i, arr in zip(batched, flat):
                call[i] = arr[lane] if arr.ndim else arr[()]
            try:
                results.append(f(*call))
            except (ArithmeticError, ValueError, TypeError, OverflowError):
                results.append(None)
                raised.append(lane)
    return results, shape, raised


def _split(results, n_out):
    if n_out is None:
        return [results]
    return [[None if r is None else r[k] for r in results] for k in range(n_out)]


def assert_lanes_equal(got, lanes, shape, raised, what="", signed_zeros=True):
    got = np.asarray(got)
    assert got.shape == tuple(shape), f"{what}shape {got.shape} != {tuple(shape)}"
    flat = got.reshape(-1)
    if not raised:       # every lane (the common case: no list of 20,000 indices to build)
        if len(lanes):
            assert_values_equal(flat[np.arange(len(lanes))], np.array(lanes), what,
                                signed_zeros)
        return
    skip = set(raised)
    ok = [i for i in range(len(lanes)) if i not in skip]
    if not ok:
        return
    assert_values_equal(flat[ok], np.array([lanes[i] for i in ok]), what, signed_zeros)


def assert_values_equal(actual, expected, what="", signed_zeros=True):
    """``actual`` (from the batch) equals ``expected`` (stacked per-example results), one row
    per lane: same dtype kind, values equal (NaN equal to NaN, floats to `RTOL` relative or a
    few ulps of the narrower precision), and signed zeros equal unless ``signed_zeros`` is
    False."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    kind_e, kind_a = expected.dtype.kind, actual.dtype.kind
    same_kind = (kind_e == kind_a or {kind_e, kind_a} <= {"i", "u"})
    assert same_kind, f"{what}dtype kind {actual.dtype} != {expected.dtype}"
    if kind_e in "fc":
        # NumPy's scalar and array loops may differ by an ulp (float32 `x ** 2` is x * x on
        # arrays, powf on scalars): compare to a few ulps of the narrower precision
        coarsest = max(float(np.finfo(d).eps) for d in (actual.dtype, expected.dtype)
                       if d.kind in "fc")
        rtol = max(RTOL, 8 * coarsest)
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=0, equal_nan=True,
                                   err_msg=what)
        # signed zeros must agree too
        zero = (expected == 0) & (actual == 0)
        if kind_e == "f" and zero.any() and signed_zeros:
            assert np.array_equal(np.signbit(actual[zero]), np.signbit(expected[zero])), \
                f"{what}sign of zero differs"
    else:
        np.testing.assert_array_equal(actual, expected, err_msg=what)


def numpy_vectorize_outcome(f, *args, excluded=(), own_only=False):
    """(result, exception) of ``numpy.vectorize(f)(*args)`` (Python numbers per example: the
    exception is the first failing example's); (None, None) for an empty batch."""
    batched = [np.asarray(a) for i, a in enumerate(args) if i not in excluded]
    if batched and np.broadcast(*batched).size == 0:
        return None, None
    raised = []

    def example(*a, **k):
        try:
            return f(*a, **k)
        except Exception as exc:
            raised.append(exc)
            raise

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return np.vectorize(example, excluded=set(excluded) or None)(*args), None
        except Exception as exc:  # noqa: BLE001 -- the reference's outcome
            # with own_only, only an exception of f itself: not numpy.vectorize's casting of
            # later results to the first result's type (NaN into the int array the first
            # example's 0 chose, where f's result type depends on the data)
            if own_only and not (raised and exc is raised[0]):
                return None, None
            return None, exc


def assert_like_numpy_vectorize(got, reference, what="", signed_zeros=True):
    """``got`` (vectorize's result) against ``reference``, numpy.vectorize's on the same
    arguments: the same dtype per output (the one it learns from the first example: an int
    where the first example's result is an int, the other examples' floats truncated into
    it) and equal values (`assert_values_equal`)."""
    if isinstance(reference, tuple):
        assert isinstance(got, tuple) and len(got) == len(reference), what
        for k, (g, r) in enumerate(zip(got, reference)):
            assert_like_numpy_vectorize(g, r, f"{what}output {k}: ", signed_zeros)
        return
    got, reference = np.asarray(got), np.asarray(reference)
    assert got.shape == reference.shape, f"{what}shape {got.shape} != {reference.shape}"
    assert got.dtype == reference.dtype, f"{what}dtype {got.dtype} != {reference.dtype}"
    assert_values_equal(got.reshape(-1), reference.reshape(-1), what, signed_zeros)


def assert_matches_loop(f, *args, fallback="error", excluded=()):
    """``vectorize(f)`` must compute what the per-example loop computes; where
    numpy.vectorize itself raises (Python numbers: ``1.0 / 0.0``, ``math.sqrt(-1.0)``, an int
    beyond int64), it must raise the same exception."""
    vf = vectorize(f, fallback=fallback, excluded=set(excluded) or None)
    result, expected = numpy_vectorize_outcome(f, *args, excluded=excluded)
    if expected is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                vf(*args)
            except Exception as exc:  # noqa: BLE001 -- compared to numpy.vectorize's
                assert type(exc) is type(expected) and str(exc) == str(expected), (
                    f"raised {exc!r}, numpy.vectorize {expected!r}")
                return None
        raise AssertionError(f"numpy.vectorize raised {expected!r}; vectorize returned")
    lanes, shape, raised = loop_reference(f, *args, excluded=excluded)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning) if not raised else None
        got = vf(*args)
    try:
        if isinstance(got, tuple):
            parts = _split(lanes, len(got))
            for k, (g, part) in enumerate(zip(got, parts)):
                assert_lanes_equal(g, part, shape, raised, what=f"output {k}: ")
        else:
            assert_lanes_equal(got, lanes, shape, raised)
    except AssertionError:
        # where Python's numbers and NumPy's scalars give different values (round(1e308, 1)
        # is 1e308 in Python, inf in NumPy), numpy.vectorize's are the contract
        if result is None or raised:
            raise
        for g, r in zip(got if isinstance(got, tuple) else (got,),
                        result if isinstance(got, tuple) else (result,)):
            assert_values_equal(np.asarray(g), np.asarray(r))
    return got


def twin_bits(value):
    """``value``'s dtype and bytes (its list where not numbers): equal bits, NaN payloads
    and signed zeros included."""
    value = np.asarray(value)
    return value.dtype, value.view(np.uint8).tobytes() if value.dtype.kind in "fiub" \
        else value.tolist()


def check_twins(scalar, select, args, otype):
    """A compacted loop (``vectorize(scalar)``) gives its ``# vectorize: select`` twin's bits,
    and numpy.vectorize's values, dtype and signs of zeros, or raises numpy.vectorize's
    exception type (returned: None where nothing raised)."""
    got, raised = outcome(lambda: vectorize(scalar)(*args))
    twin, raised_twin = outcome(lambda: vectorize(select)(*args))
    expected, error = outcome(lambda: np.vectorize(scalar, otypes=[otype])(*args))
    assert type(raised) is type(error) and type(raised_twin) is type(error), \
        (raised, raised_twin, error)
    if error is None:
        assert twin_bits(got) == twin_bits(twin)
        assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
        assert np.array_equal(got, expected, equal_nan=True)
        if got.dtype.kind == "f":
            assert np.array_equal(np.signbit(got), np.signbit(expected))
    return raised
