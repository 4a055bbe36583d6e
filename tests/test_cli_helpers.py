"""The batched helpers the file rewriter writes keep their functions' defaults.

A helper called with a parameter left out (``h(y)`` for ``def h(x, n=3)``) was written as
``def h_batched(x, n)`` and called ``h_batched(y)``: the rewritten file raised TypeError. The
rewritten module must compute what the marked functions compute (the reference: the same
file with `@vectorize` as ``numpy.vectorize`` and `@vmap` as a loop over examples), raise
what they raise, for each backend; a default the file cannot say is an error, not a file
that fails.
"""

from __future__ import annotations

import functools
import importlib
import itertools
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_cli import cli, load

from vectorize.rewrite import rewrite_text

_names = itertools.count()

HELPERS = '''\
import math

import numpy as np
from vectorize import vectorize, vmap

N = 4
SCALE = 2.0 * N


def h(x, n=3, *, k=2.0, s=SCALE):
    return x * n + k - s


def total(x, *args):
    t = x
    for a in args:
        t = t + a
    return t


def inner(x, b=float("inf"), c=-0.0):
    return (x if x < b else 0.0) + c


def outer(x, m=N + 1, flag=True):
    if flag:
        return h(x, m) + h(x, k=1.5) + inner(x)
    return inner(x, 1.0)


def clip(x, lo=-1.0, *rest, hi=1.0):
    return min(max(x, lo), hi)


def curve(x, fn=np.tanh, c=math.pi, eps=1e-8):
    return fn(x) * c + eps


def po(x, n=2, /, m=3):
    return x * n + m


def inverse(x, at=0.0):
    return 1.0 / (x - at)


@vectorize
def f(y):
    return (h(y) + h(y, 5) + h(y, n=2, k=0.5) + total(y, 1.0, 2.0) + outer(y)
            + outer(y, flag=False) + clip(y) + clip(y, 0.0) * 2.0 + curve(y) + po(y)
            + po(y, 1, m=0))


@vmap
def v(y: float):
    return h(y) * 2 + outer(y, 2) + clip(y, hi=0.5)


@vectorize
def r(y):
    return inverse(y) + inverse(y, at=1.0)


@vectorize
def later(y):
    return late(y) + late(y, 2)


M = 7


def late(x, m=M):
    return x * m
'''

PRELUDE = '''\
import numpy as np

vectorize = np.vectorize


def vmap(f):
    return lambda xs: np.array([f(x) for x in xs])
'''


def _module(text: str, prelude: str = "") -> dict:
    namespace = {"__name__": f"cli_helpers_{next(_names)}"}
    exec(compile(prelude + text, namespace["__name__"], "exec"), namespace)  # noqa: S102
    return namespace


def _reference(text: str) -> dict:
    """The file with the marks as numpy.vectorize (vectorize) and a per-example loop (vmap)."""
    return _module(re.sub(r"^from vectorize import .*\n", "", text, flags=re.M), PRELUDE)


def _rewritten(text: str, backend: str = "numpy") -> tuple[str, dict]:
    outcome = rewrite_text(text, "helpers.py", backend=backend)
    assert not outcome.errors, [str(e) for e in outcome.errors]
    assert "vectorize" not in outcome.text
    return outcome.text, _module(outcome.text)


def _outcome(fn, x):
    if x.size == 0 and isinstance(fn, np.vectorize):
        return "value", np.zeros(0)    # numpy.vectorize cannot tell the dtype of no results
    try:
        return "value", np.asarray(fn(x), dtype=float)
    except Exception as exc:  # noqa: BLE001 -- the exception's type is compared
        return "raises", type(exc)


def _agree(want, got):
    assert want[0] == got[0], (want, got)
    if want[0] == "raises":
        assert got[1] is want[1], (want, got)
    else:
        np.testing.assert_array_equal(got[1], want[1])


INPUTS = [np.array([]), np.array([1.5]), np.array([0.0, -0.0, -1.0, 2.5, np.inf, -np.inf,
                                                    np.nan]),
          np.linspace(-3.0, 3.0, 10_000)]


def test_a_helper_left_its_defaults_is_written_with_them():
    """The reported file: `h(y)` for `def h(x, n=3)` was `h_batched(y)` of
    `def h_batched(x, n)`, a TypeError when the rewritten file ran."""
    text = ("from vectorize import vectorize\n\n\ndef h(x, n=3):\n    return x * n\n\n\n"
            "@vectorize\ndef f(y):\n    return h(y) + 1.0\n")
    written, module = _rewritten(text)
    assert "def h_batched(x, n=3):" in written
    reference = _reference(text)
    for x in INPUTS[:3]:
        _agree(_outcome(reference["f"], x), _outcome(module["f"], x))


@pytest.mark.parametrize("name", ["f", "v", "r", "later"])
def test_helper_defaults_numpy(name):
    reference, module = _modules()
    for x in INPUTS:
        _agree(_outcome(reference[name], x), _outcome(module[name], x))


def test_defaults_are_written_as_the_user_wrote_them():
    written, _ = _rewritten(HELPERS)
    assert "def h_batched(x, n=3, *, k=2.0, s=SCALE):" in written
    assert "def outer_batched(x, m=N + 1, flag=True):" in written
    assert 'b=float("inf"), c=-0.0' in written
    assert "fn=np.tanh, c=math.pi, eps=1e-8" in written
    assert "def clip_batched(x, lo=-1.0, *rest, hi=1.0):" in written
    # `M` is bound after `later`, where its helper is written: the value, not the name
    assert "def late_batched(x, m=7):" in written
    assert "def po_batched(x, n=2, /, m=3):" in written
    ruff = shutil.which("ruff")
    lint = subprocess.run([*([ruff] if ruff else [sys.executable, "-m", "ruff"]), "check",
                           "--isolated", "--output-format", "concise", "-"], input=written,
                          capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout + lint.stderr


def test_a_positional_only_default_does_not_fall_back(tmp_path):
    """The engine dropped the defaults of a helper's parameters but not of its positional-only
    ones: `def po_batched(x, n=2, /, m)` was invalid, an internal error, so a function calling
    `po` ran per example (and the file rewriter rejected the file)."""
    path = tmp_path / "posonly.py"
    path.write_text("from vectorize import vectorize\n\n\ndef po(x, n=2, /, m=3):\n"
                    "    return x * n + m\n\n\n@vectorize(fallback='error')\ndef f(y):\n"
                    "    return po(y) + po(y, 1, m=0)\n")
    x = np.array([0.5, -2.0, 3.0])
    np.testing.assert_array_equal(load(path).f(x), x * 2 + 3 + x)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=6))
def test_helper_defaults_random_inputs(values):
    x = np.array(values, dtype=float)
    reference, rewritten = _modules()
    for name in ("f", "v", "r"):
        _agree(_outcome(reference[name], x), _outcome(rewritten[name], x))


@functools.cache
def _modules() -> tuple[dict, dict]:
    """The reference and the rewritten module of HELPERS (built once)."""
    return _reference(HELPERS), _rewritten(HELPERS)[1]


@pytest.mark.parametrize("backend", ["torch", "jax"])
def test_helper_defaults_other_backends(backend):
    library = pytest.importorskip(backend)
    x64 = library.config.jax_enable_x64 if backend == "jax" else None
    try:
        # (a file written for JAX enables x64 for the process when it runs)
        written, module = _rewritten(HELPERS, backend)
        assert "def h_batched(x, n=3, *, k=2.0, s=SCALE):" in written
        convert = library.tensor if backend == "torch" else \
            importlib.import_module("jax.numpy").asarray
        for name in ("f", "v", "later"):
            x = INPUTS[2]
            want = _modules()[0][name](x)
            got = np.asarray(module[name](convert(x)), dtype=float)
            np.testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True)
    finally:
        if backend == "jax":     # this process' other tests expect JAX's default
            library.config.update("jax_enable_x64", bool(x64))


def test_a_default_the_file_cannot_say_is_a_located_error(tmp_path):
    """A default that is neither a literal nor a name bound before the helper is written
    (here bound after the marked function) is an error at the default, exit 2."""
    path = tmp_path / "late_default.py"
    text = ("import numpy as np\nfrom vectorize import vectorize\n\n\n@vectorize\n"
            "def later(y):\n    return late(y)\n\n\nG = np.cos\n\n\n"
            "def late(x, fn=G):\n    return fn(x)\n")
    path.write_text(text)
    result = cli("-w", path)
    assert result.returncode == 2
    assert f"{path}:13:16: error: the default value of `fn` of `late`" in \
        result.stderr.decode(), result.stderr.decode()
    assert path.read_text() == text



def test_a_helper_of_another_module_keeps_its_defaults(tmp_path, monkeypatch):
    """Its defaults are written as its module wrote them where this file binds those names to
    the same values (`np.sin`), else as literals; a name the file does not bind is an error."""
    monkeypatch.syspath_prepend(str(tmp_path))
    sibling = f"cli_helpers_sibling_{next(_names)}"
    (tmp_path / f"{sibling}.py").write_text(
        "import numpy as np\n\nLIMIT = 4.0\n\n\ndef ext(x, fn=np.sin, lim=LIMIT, *, q=0.5):\n"
        "    return min(fn(x), lim) + q\n")
    text = (f"import numpy as np\nfrom vectorize import vectorize\nfrom {sibling} import ext"
            "\n\n\n@vectorize\ndef f(y):\n    return ext(y) + ext(y, q=1.0)\n")
    path = tmp_path / "uses_sibling.py"
    outcome = rewrite_text(text, str(path))
    assert not outcome.errors, [str(e) for e in outcome.errors]
    assert "def ext_batched(x, fn=np.sin, lim=4.0, *, q=0.5):" in outcome.text
    module = _module(outcome.text)
    reference = _reference(text)
    for x in INPUTS[1:3]:
        _agree(_outcome(reference["f"], x), _outcome(module["f"], x))
    # `np.sin` read through a name this file does not bind: not written, an error
    unbound = text.replace("import numpy as np\n", "")
    outcome = rewrite_text(unbound, str(path))
    assert [e.reason.split(":")[0] for e in outcome.errors] == \
        ["the default value of `fn` of `ext` (ufunc) cannot be written into the batched `ext`"]
    assert outcome.text == unbound


# A closure handed to a helper of the file (`body_constructs.bound_closures`) is bound into a
# copy of the helper read under a made-up file name; the file rewriter took that copy for a
# function of another module and refused the file ("`f` calls a function of another module
# that reads `g`"), where it had rewritten `apply(y, lambda t: t * 2.0)` before. The bound
# helper is this file's helper: written as `apply_batched(y)` with the closure in it.
CLOSURES = '''\
import numpy as np
from vectorize import vectorize, vmap


def apply(x, g):
    return g(x) + 1.0


def twice(x, g, k=2):
    return apply(x, g) * k


def branch(x, g):
    if x > 0:
        return g(x)
    return -g(-x)


def solve(f, x0, n=3):
    x = x0
    for _ in range(n):
        x = x - f(x) / 2.0
    return x


@vectorize
def lam(y):
    return apply(y, lambda t: t * 2.0)


@vectorize
def nested(y):
    def g(t):
        return t * t - 1.0
    return apply(y, g) + branch(y, g)


@vectorize
def over(y, a=3.0):
    s = y * a
    return apply(y, lambda t: t * s) + branch(y, lambda t: t + y)


@vectorize
def passed(y):
    c = y + 1.0
    return twice(y, lambda t: t / c) + twice(y, lambda t: t - c, 3)


@vectorize
def root(y):
    def f(x):
        return x * x - y
    return solve(f, 1.0) + solve(f, y, n=2)


@vectorize
def raises(y):
    return apply(y, lambda t: 1.0 / t) + apply(y, np.sqrt)


@vmap
def vm(y: float):
    b = y * 0.5
    return apply(y, lambda t: t * b) + branch(y, lambda t: t)
'''
CLOSURE_NAMES = ["lam", "nested", "over", "passed", "root", "raises", "vm"]


@functools.cache
def _closure_modules(backend: str = "numpy") -> tuple[dict, str, dict]:
    return (_reference(CLOSURES), *_rewritten(CLOSURES, backend))


def test_the_reported_lambda_is_written_as_a_helper_of_the_file():
    text = ("from vectorize import vectorize\n\n\ndef apply(x, g):\n    return g(x) + 1.0\n"
            "\n\n@vectorize\ndef f(y: float):\n    return apply(y, lambda t: t * 2.0)\n")
    written, module = _rewritten(text)
    assert "return apply_batched(y)" in written
    assert "def apply_batched(x):\n    return g_batched(x) + 1.0" in written
    assert "def g_batched(t):\n    return t * 2.0" in written
    x = np.array([1.0, -2.5, 0.0])
    np.testing.assert_array_equal(module["f"](x), x * 2.0 + 1.0)


@pytest.mark.parametrize("name", CLOSURE_NAMES)
def test_bound_closures_numpy(name):
    reference, _, module = _closure_modules()
    for x in INPUTS:
        _agree(_outcome(reference[name], x), _outcome(module[name], x))


def test_bound_closures_are_written_readably_and_ruff_clean():
    _, written, _ = _closure_modules()
    assert "<vectorize" not in written and "lambda" not in written.split("@vectorize")[-1]
    assert "def apply_batched_3(s, x):\n    return (x * s) + 1.0" in written   # (over's)
    ruff = shutil.which("ruff")
    lint = subprocess.run([*([ruff] if ruff else [sys.executable, "-m", "ruff"]), "check",
                           "--isolated", "--output-format", "concise", "-"], input=written,
                          capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout + lint.stderr


@settings(max_examples=20, deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=6))
def test_bound_closures_random_inputs(values):
    x = np.array(values, dtype=float)
    reference, _, module = _closure_modules()
    for name in CLOSURE_NAMES:
        _agree(_outcome(reference[name], x), _outcome(module[name], x))


@pytest.mark.parametrize("backend", ["torch", "jax"])
def test_bound_closures_other_backends(backend):
    library = pytest.importorskip(backend)
    x64 = library.config.jax_enable_x64 if backend == "jax" else None
    try:
        reference, written, module = _closure_modules(backend)
        assert "<vectorize" not in written
        convert = library.tensor if backend == "torch" else \
            importlib.import_module("jax.numpy").asarray
        x = np.array([0.5, -0.0, -1.5, 2.5, np.inf, -np.inf, np.nan, 3.0])
        for name in CLOSURE_NAMES:
            if name == "raises":
                continue    # (NumPy's checks: torch and JAX give inf where Python raises)
            want = reference[name](x)
            got = np.asarray(module[name](convert(x)), dtype=float)
            np.testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True)
    finally:
        if backend == "jax":     # this process' other tests expect JAX's default
            library.config.update("jax_enable_x64", bool(x64))


def test_bound_closures_written_file_runs_as_the_original(tmp_path):
    """The written file, run as a script in its own process, prints what the original file
    (run with the decorators) prints, raising where it raises (N = 0, 1, 3)."""
    main = ("\n\nif __name__ == '__main__':\n"
            "    for x in ([], [0.25], [1.5, -2.0, 0.0]):\n"
            f"        for name in {CLOSURE_NAMES!r}:\n"
            "            try:\n"
            "                print(name, np.asarray(globals()[name](np.array(x))).tolist())\n"
            "            except Exception as exc:\n"
            "                print(name, type(exc).__name__)\n")
    original, written = tmp_path / "original.py", tmp_path / "written.py"
    original.write_text(CLOSURES + main)
    outcome = rewrite_text(CLOSURES + main, str(original))
    assert not outcome.errors, [str(e) for e in outcome.errors]
    written.write_text(outcome.text)
    runs = [subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                           cwd=tmp_path) for path in (original, written)]
    assert runs[0].returncode == runs[1].returncode == 0, runs
    assert runs[0].stdout == runs[1].stdout and runs[0].stdout.count("\n") == 21, runs
    assert "ZeroDivisionError" in runs[0].stdout


PER_EXAMPLE = '''\
import numpy as np
from vectorize import vectorize


def h(x, fn=np.sin):
    return fn(x)


@vectorize
def f(y: float):
    return h(y) + 1.0
'''


def test_a_torch_file_running_a_piece_per_example_gives_an_empty_batch_its_result():
    """`torch.stack` of the per-example results raised on an empty batch (no tensors to
    stack), where the decorator returns an empty result: the written code gives an empty
    tensor of the result's dtype then."""
    torch = pytest.importorskip("torch")
    outcome = rewrite_text(PER_EXAMPLE, "per_example.py", backend="torch")
    assert not outcome.errors, [str(e) for e in outcome.errors]
    assert len(outcome.warnings) == 1      # (`fn` runs per example)
    module = _module(outcome.text)
    reference = _reference(PER_EXAMPLE)
    for x in (np.array([]), np.array([0.5]), np.array([0.0, -0.0, -1.5, 2.5, np.nan])):
        got = module["f"](torch.tensor(x))
        assert got.dtype == torch.float64 and got.shape == x.shape
        want = reference["f"](x) if x.size else np.zeros(0)
        np.testing.assert_array_equal(got.numpy(), want)


def test_a_nested_def_the_file_cannot_name_is_a_located_error(tmp_path, monkeypatch):
    """A nested `def` handed to a helper of another module that cannot take it (it reads `np`,
    which that module does not bind) stays an argument of the call: an error saying so, the
    file unchanged (not a written file that fails with NameError)."""
    monkeypatch.syspath_prepend(str(tmp_path))
    sibling = f"cli_helpers_sibling_{next(_names)}"
    (tmp_path / f"{sibling}.py").write_text("def apply2(x, g):\n    return g(x) * 2.0\n")
    text = (f"import numpy as np\nfrom vectorize import vectorize\nfrom {sibling} import apply2"
            "\n\n\n@vectorize\ndef f(y):\n    def g(t):\n        return np.cos(t)\n"
            "    return apply2(y, g) + apply2(y, lambda t: t * y)\n")
    outcome = rewrite_text(text, str(tmp_path / "nested_def.py"))
    assert [e.reason for e in outcome.errors] == [
        "the rewritten `f` would pass on `g`, a function defined in the body of a function of "
        "this file, which the written file does not bind"]
    assert outcome.errors[0].line == 7 and outcome.text == text
    # the lambda alone (it reads `y` only) is bound into `apply2`'s batched version
    outcome = rewrite_text(text.replace("apply2(y, g) + ", ""), str(tmp_path / "lam.py"))
    assert not outcome.errors, [str(e) for e in outcome.errors]
    x = np.array([0.5, -2.0])
    np.testing.assert_array_equal(_module(outcome.text)["f"](x), x * x * 2.0)
