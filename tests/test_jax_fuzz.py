"""The differential fuzzers and the array corpus under ``backend="jax"``.

The program generators of ``tests/fuzz/`` (scalar programs through ``vectorize``, programs over
per-example vectors through ``vmap`` / ``vectorize(signature=...)``, the construct programs)
run with ``backend="jax"`` against the same references as under NumPy (the per-example loop,
numpy.vectorize itself): values within 1e-12 relative for float64, XLA's divergences that
docs/jax.md lists accepted only by a named predicate each (`harness.JAX_DIVERGENCES`). A
located `VectorizeError` is a refusal (counted), a mismatch or any other exception a failure.
Derandomized: CI runs the same programs every time; ``benchmarks/fuzz_long.py --backend jax``
and ``benchmarks/fuzz_constructs.py --backend jax`` explore at random.

The array corpus (`array_corpus`) runs under ``vmap(..., backend="jax")`` on a sample of
drawn inputs per function and ``in_axes`` (each new shape is a new `jax.jit` compile).
"""

from __future__ import annotations

import os
import random
import warnings
from collections import Counter

import numpy as np
import pytest

jax = pytest.importorskip("jax")

import array_corpus as ac  # noqa: E402
from fuzz import construct_programs, vector_programs  # noqa: E402
from fuzz import programs as scalar_programs  # noqa: E402
from fuzz.harness import (  # noqa: E402
    ModuleWriter,
    format_case,
    run_case,
    run_construct_case,
)
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from test_array_corpus import assert_same, corpus_inputs, per_example  # noqa: E402

from vectorize import VectorizeError, vectorize, vmap  # noqa: E402


@pytest.fixture(scope="module")
def writer(tmp_path_factory):
    return ModuleWriter(tmp_path_factory.mktemp("jaxfuzz"))


def _settings(n):
    return settings(max_examples=n, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


_tally: dict[str, Counter] = {"scalars": Counter(), "vectors": Counter()}


def _check(kind, case, writer):
    program, args, seed = case
    outcome = run_case(program, args, writer, protocol=None, seed=seed, backend="jax")
    _tally[kind][outcome.kind] += 1
    if outcome.failed:
        raise AssertionError("\n" + format_case(program, args, outcome))


@_settings(6)
@given(case=scalar_programs.cases())
def test_scalar_programs_under_jax(case, writer):
    _check("scalars", case, writer)


@_settings(4)
@given(case=vector_programs.cases())
def test_vector_programs_under_jax(case, writer):
    _check("vectors", case, writer)


def test_the_programs_were_not_all_refused():
    """(runs after the two above) the comparison is not vacuous."""
    for kind, tally in _tally.items():
        if sum(tally.values()):
            assert tally["ok"] >= sum(tally.values()) // 3, (kind, dict(tally))


@pytest.mark.parametrize("api", ["vectorize", "vmap"])
def test_construct_programs_under_jax(writer, api):
    kinds, failures = Counter(), []
    for seed in range(4):
        rng = random.Random(seed)
        text, features = construct_programs.program(rng)
        first = construct_programs.inputs(random.Random(seed * 7919), 12)
        arg_sets = [first]
        for n in (0, 1, 5):
            args = construct_programs.inputs(random.Random(seed * 7919 + n), n)
            with np.errstate(all="ignore"):
                arg_sets.append(tuple(a.astype(f.dtype) for a, f in zip(args, first)))
        outcome = run_construct_case(text, arg_sets, writer, api, rng.random() < 0.3,
                                     backend="jax")
        kinds[outcome.kind] += 1
        if outcome.kind in ("mismatch", "internal"):
            failures.append(f"seed {seed} ({', '.join(features)}): {outcome.kind} at "
                            f"{outcome.call}: {outcome.detail[:800]}\n{text}")
    assert not failures, "\n\n".join(failures)
    assert kinds["ok"] >= 1, dict(kinds)


def test_condwrites_programs_under_jax(writer):
    """The ``condwrites`` family (`fuzz/wide_programs.py`: writes into created arrays under
    per-example conditions, per-example indices, slices, swaps, copies, helpers) under
    ``backend="jax"`` against the per-example loop and numpy.vectorize itself: the writes are
    functional updates (docs/jax.md); ``benchmarks/fuzz_wide.py --family condwrites --backend
    jax`` runs more."""
    from fuzz import wide_programs
    kinds, failures = Counter(), []
    for seed in (2, 6):
        source, api, features, run = wide_programs.case("condwrites", seed, "jax")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outcome = run(writer)
        kinds[outcome.kind] += 1
        if outcome.kind in ("mismatch", "internal"):
            failures.append(f"seed {seed} {api} ({', '.join(features)}): {outcome.kind} at "
                            f"{outcome.call}: {outcome.detail[:800]}\n{source}")
    assert not failures, "\n\n".join(failures)
    assert kinds["ok"] >= 1, dict(kinds)


# ------------------------------------------------------------- the array corpus, backend="jax"

#: corpus functions (name, in_axes) the JAX backend refuses, with words of the located reason
#: (docs/jax.md, "Refusals"); none since writes into created arrays became functional updates
#: (`binned_excess`, `zero_label_if_positive` were refused: "cannot be written in place"), local
#: lists the arrays of their items and helpers writing on some lanes into copies
JAX_ARRAY_REFUSED: dict = {}
JAX_SIGNATURE_REFUSED: dict = {}


def _array_params():
    out = []
    for f, spec in ac.CORPUS.items():
        for in_axes in spec.in_axes:
            if in_axes in spec.bug:
                continue
            out.append(pytest.param(f, in_axes, id=f"{f.__name__}-{in_axes}"))
    return out


ARRAY_EXAMPLES = int(os.environ.get("JAX_ARRAY_CORPUS_MAX_EXAMPLES", "1"))


@pytest.mark.parametrize("f, in_axes", _array_params())
@settings(max_examples=ARRAY_EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_array_corpus_under_jax(f, in_axes, data):
    axes, args = data.draw(corpus_inputs(ac.CORPUS[f], in_axes))
    expected = per_example(f, args, axes)
    refused = JAX_ARRAY_REFUSED.get((f.__name__, in_axes))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        wrapped = vmap(f, in_axes=axes, fallback="error", backend="jax")
        if refused is not None:
            with pytest.raises(VectorizeError, match=refused) as info:
                wrapped(*args)
            assert "array_corpus.py:" in str(info.value)
            return
        got = wrapped(*args)
    assert_same(got, expected, f"{f.__name__} in_axes={axes} "
                               f"shapes={[np.shape(a) for a in args]}: ")


@pytest.mark.parametrize("f", [pytest.param(f, id=f.__name__) for f, spec in ac.CORPUS.items()
                               if spec.signature and "signature" not in spec.bug])
@settings(max_examples=ARRAY_EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_array_corpus_signature_under_jax(f, data):
    spec = ac.CORPUS[f]
    batch_shape = data.draw(st.sampled_from([(1,), (4,), (2, 3)]))
    _, args = data.draw(corpus_inputs(spec, spec.in_axes[0], batch_shape))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        refused = JAX_SIGNATURE_REFUSED.get(f.__name__)
        if refused is not None:
            with pytest.raises(VectorizeError, match=refused) as info:
                vectorize(f, signature=spec.signature, fallback="error", backend="jax")(*args)
            assert "array_corpus.py:" in str(info.value)
            return
        expected = np.vectorize(f, signature=spec.signature)(*args)
        got = vectorize(f, signature=spec.signature, fallback="error", backend="jax")(*args)
    if isinstance(expected, tuple):
        assert_same(got, tuple(np.asarray(e) for e in expected), f"{f.__name__}: ")
    else:
        assert_same(got, np.asarray(expected), f"{f.__name__}: ")


def sign_word(x, y):
    s = "neg" if x < y else "pos"
    return x * 1.0 if s == "neg" else y * 1.0


@pytest.mark.parametrize("api", ["vectorize", "vmap"])
def test_a_per_example_choice_between_strings_is_refused_at_the_choice(api):
    """(found by the construct fuzzer: ``jnp.where(x < y, 'neg', 'pos')`` crashed inside JAX
    with a TypeError) JAX has no arrays of strings: a located refusal."""
    x, y = np.array([1.0, -2.0, 3.0]), np.array([0.0, 5.0, 3.0])
    f = (vectorize(sign_word, fallback="error", backend="jax") if api == "vectorize"
         else vmap(sign_word, backend="jax"))
    with pytest.raises(VectorizeError, match="choice between strings") as info:
        f(x, y)
    assert "test_jax_fuzz.py:" in str(info.value) and "^" in str(info.value)
    # the NumPy backend computes it
    np.testing.assert_array_equal(vmap(sign_word)(x, y),
                                  [sign_word(a, b) for a, b in zip(x, y)])


# ------------------------------------------------- found by the fuzzers under backend="jax"

SIZES = [0, 1, 5, 10_000]


def _rows(n, length=2, seed=0):
    rng = np.random.default_rng(seed)
    return rng.choice([0.0, -1.0, 0.5, 2.0, np.inf, -7.25], (n, length))


def decided_on_a_carry(v, w, y):
    for _ in range(len(v)):
        for _ in range(len(v)):
            y += (-(len(v) * -2.5))
        n0 = 0
        while n0 < 5 and ((0.5 > y) and (y < float(len(v)))):
            n0 += 1
            y = y - float(10.0 < y)
    return w * y


def alternating(x, n):
    s = 0.0
    for k in range(n):
        if k % 2 == 0:
            s = s + x
        else:
            s = s - 0.5 * x
    return s


def inverse_sum(x, n):
    s = 0.0
    for k in range(n):
        s = s + 1.0 / (x - k)
    return s


@pytest.mark.parametrize("n", SIZES)
def test_a_python_decision_on_a_loop_carry_or_index_keeps_a_python_loop(n):
    """(vector fuzzer: TracerBoolConversionError) a loop with the same trip count for every
    example became `lax.fori_loop`, whose carry and index are traced, though the code decides
    in Python on them (`while ... y < ...` on a carried unbatched `y`, `if k % 2 == 0`): it
    stays a Python loop (unrolled by `jit`)."""
    v, w = _rows(n), np.array([-1.0, 0.5])
    f = vmap(decided_on_a_carry, in_axes=(0, None, None), backend="jax")
    expected = np.stack([decided_on_a_carry(r, w, -3.0) for r in v]) if n else \
        np.zeros((0, 2))
    np.testing.assert_array_equal(f(v, w, -3.0), expected)
    assert "fori_loop" not in f.source(v, w, -3.0)
    x = np.linspace(-3.0, 3.0, n)
    g = vmap(alternating, in_axes=(0, None), backend="jax")
    got = g(x, 20)
    np.testing.assert_allclose(got, [alternating(t, 20) for t in x], rtol=1e-12)
    assert "fori_loop" not in g.source(x, 20)
    np.testing.assert_allclose(vectorize(alternating, fallback="error", backend="jax")(x, 20),
                               np.vectorize(alternating, otypes=[float])(x, 20), rtol=1e-12)
    # the engine's own checks (`if jnp.any(x - k == 0): raise ZeroDivisionError`) are no
    # Python decision: that loop stays a `fori_loop`, and raises as numpy.vectorize does
    h = vectorize(inverse_sum, fallback="error", backend="jax")
    x = np.linspace(0.25, 30.25, n)
    np.testing.assert_allclose(h(x, 40), np.vectorize(inverse_sum, otypes=[float])(x, 40),
                               rtol=1e-12)
    assert "lax.fori_loop" in h.source(x, 40)
    if n:
        with pytest.raises(ZeroDivisionError):
            h(np.append(x, 3.0), 40)


def halving(x):
    n = 0
    while x > 1.0:
        if x > 100.0:
            raise ValueError(f"too big: {x}")
        x = x * 0.5
        n += 1
    return n


@pytest.mark.parametrize("n", SIZES)
def test_a_raise_inside_a_lowered_loop_raises_the_first_failing_example(n):
    """(found while adding the safety net) the op-by-op run that raises a failed check as
    written traced the loop body once more for its carry types (`promote_carry`), where the
    `raise` check cannot run: vmap gave TracerBoolConversionError instead of the user's
    ValueError with the first failing example."""
    x = np.linspace(0.5, 90.0, n)
    f = vmap(halving, backend="jax")
    np.testing.assert_array_equal(f(x), [halving(t) for t in x] if n else np.zeros(0, int))
    if n:
        bad = x.copy()
        bad[n // 2:] = np.linspace(150.0, 300.0, n - n // 2)
        with pytest.raises(ValueError, match=f"too big: {bad[n // 2]}"):
            f(bad)
        with pytest.raises(ValueError, match=f"too big: {bad[n // 2]}"):
            vectorize(halving, fallback="error", backend="jax")(bad)


def per_example_digits(x, y):
    return round(x * 1.5, y) + y


def with_a_word(v):
    return "hi", np.sum(v)


@pytest.mark.parametrize("n", SIZES)
def test_what_jax_cannot_trace_is_a_located_refusal_or_the_fallback(n):
    """(construct fuzzer: a bare TypeError from inside JAX at N = 0) what `jit` cannot trace
    and JAX cannot run op by op either (`jnp.round` takes its digits as a Python int) is a
    `VectorizeError` at the user's line, or with fallback='warn' the per-example run."""
    x = (np.arange(n) % 3 + 1).astype(np.int8)
    for wrapped in (vmap(per_example_digits, backend="jax"),
                    vectorize(per_example_digits, fallback="error", backend="jax")):
        with pytest.raises(VectorizeError, match="cannot run the code generated") as info:
            wrapped(x, x)
        assert "test_jax_fuzz.py:" in str(info.value) and \
            "round(x * 1.5, y) + y" in str(info.value)
    if n:
        quiet = vectorize(per_example_digits, backend="jax")
        with pytest.warns(UserWarning, match="cannot run its generated code"):
            got = quiet(x, x)
        np.testing.assert_array_equal(got, np.vectorize(per_example_digits)(x, x))
        with pytest.warns(UserWarning, match="cannot run its generated code"):
            got = vmap(per_example_digits, backend="jax", fallback="warn")(x, x)
        # (the loop runs on the NumPy arguments' items, NumPy scalars)
        np.testing.assert_array_equal(got, [per_example_digits(a, a) for a in x])
    # (vector fuzzer: TypeError from jit) a string output: refused as on NumPy
    with pytest.raises(VectorizeError, match="the output 'hi'"):
        vmap(with_a_word, backend="jax")(_rows(max(n, 1)))


def sum_and_mean(v):
    return np.sum(v), v[0] // np.sum(v[1:])


@pytest.mark.parametrize("n", [1, 5, 10_000])
@pytest.mark.parametrize("length", [5, 130])
def test_sums_add_in_numpys_order_whatever_the_batch_size(n, length):
    """(vector fuzzer: a mismatch in large calls only) XLA's reduce adds in another order on
    large batches (about 1,000 examples up), so where terms cancel an example's sum depended
    on the batch size; sums over an axis now add in NumPy's pairwise order. And `//` of
    floats: `jnp.floor_divide` rounds the quotient, Python and NumPy floor it
    (`1e16 // 3.0`: 3333333333333334.0, Python 3333333333333333.0)."""
    rng = np.random.default_rng(length)
    v = rng.choice([1e300, -1e300, 1e16, -1e16, 1.0, -2.5, 3.3, 0.1], (n, length))
    v = v * rng.choice([1.0, 0.5, 1.5], v.shape)
    with np.errstate(all="ignore"):
        expected = [np.stack(r) for r in zip(*[sum_and_mean(row) for row in v])]
        got = vmap(sum_and_mean, backend="jax")(v)
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)


def rounded_sum(x, y):
    v0 = round(y, 1)
    return v0 + x


def test_the_fused_round_and_sum_divergence_computes_xlas_value():
    """(construct fuzzer: -1.7e-16 for 0.0) XLA fuses `rint(y * 10) * 0.1 + x` into one
    multiply-add: the harness' named divergence (`xla_fused_variant`, docs/jax.md) recomputes
    the per-example code so; every lane equals the loop or that variant."""
    import inspect

    from fuzz.harness import xla_fused_variant
    x = np.array([-4.0, 10.0, 3.0, -9.0, -9.0, 0.3, 2.5])
    y = np.array([0.0, -1.0, -3.0, -1.0, -10.0, -0.3, -2.5])
    variant = xla_fused_variant(rounded_sum, inspect.getsource(rounded_sum))
    # -30 * 0.1 + 3.0 rounded once (Python, twice: -4.4e-16; round(-3.0, 1) + 3.0: 0.0)
    assert variant(3.0, -3.0) == -1.6653345369377348e-16
    got = vmap(rounded_sum, backend="jax")(x, y)
    for g, a, b in zip(got, x, y):
        assert g in (rounded_sum(a, b), variant(a, b)), (a, b, g)


def max_min_plus(v):
    return np.max(v) + v[-1], np.min(v) * 2.0


@pytest.mark.parametrize("n", SIZES)
def test_max_and_min_over_an_axis_keep_nans_at_every_batch_size(n):
    """(vector fuzzer: a NaN-location mismatch in large calls only) XLA's max/min reductions
    on CPU drop NaNs from about 1,000 examples (the max of [0.5, nan, -inf] was 0.5); NumPy's
    keep them."""
    rows = np.array([[0.5, np.nan, -np.inf], [np.nan, 1.0, 2.0], [1.0, 2.0, np.nan],
                     [1.0, -3.0, 2.5]])
    v = rows[np.arange(n) % 4]
    got = vmap(max_min_plus, backend="jax")(v)
    expected = [np.stack(r) if n else np.zeros(0) for r in zip(*[max_min_plus(r) for r in v])] \
        if n else [np.zeros(0), np.zeros(0)]
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)
