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
    assert kinds["ok"] >= 2, dict(kinds)


# ------------------------------------------------------------- the array corpus, backend="jax"

#: corpus functions (name, in_axes) the JAX backend refuses, with words of the located reason
JAX_ARRAY_REFUSED: dict = {}


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
