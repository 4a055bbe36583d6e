"""Golden tests for per-example array code: the generated source of `array_corpus` functions
under `vmap` is reviewed like code.

Each golden file is exactly what ``vmap(f, in_axes).source(*args)`` shows for the arguments
below; it must pass ``ruff check --isolated`` (default rules), compute what the per-example loop
computes, and show ``np.einsum`` wherever the scalar code had ``.dot(`` or ``@`` (and neither
of those any more). Regenerate after a deliberate change with
``VECTORIZE_UPDATE_GOLDEN=1 python -m pytest tests/test_golden_arrays.py`` and review the diff.
"""

import inspect
import os
import pathlib
import re
import shutil
import subprocess
import sys
import warnings

import array_corpus as ac
import numpy as np
import pytest

from vectorize import vmap

GOLDEN = pathlib.Path(__file__).parent / "golden_arrays"
RNG = np.random.default_rng(3)
X = RNG.integers(-4, 5, size=(5, 3)) / 2
Y = RNG.integers(-4, 5, size=(5, 3)) / 2

CASES = {
    "relu_linear": (ac.relu_linear, (0, None), (X, np.array([0.5, -1.0, 2.0]))),
    "mlp": (ac.mlp, (0, None, None, None),
            (X, RNG.integers(-2, 3, size=(4, 3)) / 2, np.ones(4) / 2,
             RNG.integers(-2, 3, size=(2, 4)) / 2)),
    "cosine_similarity": (ac.cosine_similarity, (0, 0), (X, Y)),
    "quadratic_form": (ac.quadratic_form, (0, None), (X, np.eye(3) + 0.5)),
    "bilinear": (ac.bilinear, (0, 0, None), (X, Y[:, :2], np.ones((3, 2)))),
    "attention": (ac.attention, (0, None, None), (X, RNG.integers(-2, 3, size=(4, 3)) / 2,
                                                  RNG.integers(-2, 3, size=(4, 2)) / 2)),
    "attention_score": (ac.attention_score, (0, 0), (X, Y)),
    "ray_sphere": (ac.ray_sphere, (0, 0, None, None), (X, Y, np.array([0.0, 0.0, 1.0]), 1.5)),
    "mahalanobis": (ac.mahalanobis, (0, None, None), (X, np.zeros(3), np.eye(3))),
    "trace_outer": (ac.trace_outer, (0, 0), (X, Y)),
    "softmax": (ac.softmax, (0,), (X,)),
    "nearest_centroid": (ac.nearest_centroid, (0, None), (X, np.eye(3))),
    "clip_by_norm": (ac.clip_by_norm, (0, None), (X, 1.0)),
    # writes under per-example conditions: masked writes (`np.where` of the old item)
    "binned_excess": (ac.binned_excess, (0, 0), (X, Y[:, 0])),
    "zero_label_if_positive": (ac.zero_label_if_positive, (0, 0),
                               (X, np.array([0, 2, 1, 0, 2]))),
    # a local list written into (an array of its items), a helper writing on some lanes
    "bin_spread": (ac.bin_spread, (0, 0), (X, Y[:, 0])),
    "capped_if_first_positive": (ac.capped_if_first_positive, (0, None), (X, 0.75)),
}


def _source(name):
    f, in_axes, args = CASES[name]
    return vmap(f, in_axes=in_axes, fallback="error").source(*args)


def _loop(f, in_axes, args):
    size = next(np.shape(a)[0] for a, ax in zip(args, in_axes) if ax is not None)
    return np.stack([np.asarray(f(*[a if ax is None else a[n] for a, ax in zip(args, in_axes)]))
                     for n in range(size)])


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_source(name):
    f, in_axes, args = CASES[name]
    source = _source(name)
    path = GOLDEN / f"{name}.py"
    if os.environ.get("VECTORIZE_UPDATE_GOLDEN"):
        path.write_text(source)
    assert source == path.read_text()
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        got = vmap(f, in_axes=in_axes, fallback="error")(*args)
        expected = _loop(f, in_axes, args)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-13, equal_nan=True)


def test_enough_golden_functions():
    assert len(CASES) >= 6


@pytest.mark.parametrize("name", sorted(CASES))
def test_products_become_batched_products(name):
    """Where the scalar code had `.dot(` or `@` (in the function or a helper it calls), the
    generated code has one batched product for it (`np.einsum(`, or `@` of whole batches
    where it is a matrix product, `merge.rows_dot(` where it is a batch of rows times a
    shared vector) and no `.dot(` left."""
    f = CASES[name][0]
    scalar = inspect.getsource(f).split(":", 1)[1]
    text = (GOLDEN / f"{name}.py").read_text()
    body = text.split(f"def {f.__name__}(", 1)[1]
    if ".dot(" in scalar or re.search(r"\s@\s", scalar):
        assert "np.einsum(" in body or re.search(r"\s@\s", body) or \
            "merge.rows_dot(" in body, name
    assert ".dot(" not in body, name


@pytest.mark.parametrize("name", ["mlp", "relu_linear", "attention"])
def test_matrix_products_go_to_blas(name):
    """A product of a batch of vectors with a shared vector or matrix is one `@` (one BLAS
    call, as hand-written NumPy has it), not an einsum, which loops in C or plans its path
    in Python on every call; with a shared vector, `merge.rows_dot` (`@`, or its own einsum
    where long batches of rows stream faster through it: tests/test_perf33.py)."""
    text = (GOLDEN / f"{name}.py").read_text()
    assert "np.einsum(" not in text and (re.search(r"\s@\s", text) or
                                         "merge.rows_dot(" in text), text


def test_einsum_plans_only_where_blas_can_help():
    """optimize= (a path planned in Python on every call) only on an einsum that contracts an
    axis between two operands that both keep free ones: never on an outer product."""
    for path in GOLDEN.glob("*.py"):
        for call in re.findall(r"np\.einsum\(\"([^\"]*)\"[^\n]*", path.read_text()):
            inputs, out = call.split("->") if "->" in call else (call, "")
            specs = inputs.split(",")
            contracted = len(specs) == 2 and (set(specs[0]) & set(specs[1])) - set(out)
            line = next(ln for ln in path.read_text().splitlines() if call in ln)
            if not contracted:
                assert "optimize=" not in line, (path.name, line)


def test_golden_sources_pass_ruff():
    ruff = shutil.which("ruff")
    cmd = [ruff] if ruff else [sys.executable, "-m", "ruff"]
    result = subprocess.run([*cmd, "check", "--isolated", "--output-format", "concise",
                             str(GOLDEN)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_golden_sources_keep_user_names():
    for name, (f, _, _) in CASES.items():
        text = (GOLDEN / f"{name}.py").read_text()
        assert f"def {f.__name__}(" in text
        assert "_t" not in text.split("def ", 1)[1].replace("_to", ""), name
