"""The seam between the engine and its backends, checked from outside:

- nothing outside ``vectorize/backends/`` chooses by a backend's name (it asks the backend's
  flags and methods: `backends.base.Backend`);
- a new backend is its folder and one registration line (``docs/design.md``, "Adding a
  backend"): a toy backend, a NumPy clone under another name registered here and nowhere
  else, runs functions end to end through `vmap`, `vectorize` and the file rewriter.
"""

from __future__ import annotations

import ast
import math
import pathlib
import re

import numpy as np
import pytest

import vectorize
from vectorize import backends
from vectorize.backends.numpy import NumpyBackend

PACKAGE = pathlib.Path(vectorize.__file__).resolve().parent
NAMES = set(backends.KNOWN) | {"jnp", "lax"}
# what a name may be compared with where the comparison is about the user's library, not
# about the backend the code is written for: a module's name (``fn.__module__ == "numpy"``,
# a variable ``module``), a rule's family (named after the library the user calls), or the
# user's own spelling in the source (``func.value.value in ("np", "numpy")``: a libcst node)
_ABOUT_THE_USERS_LIBRARY = re.compile(r"__module__|__name__|\bmodule\b|\.family\b|\.value\b")


def _names_a_backend(node) -> bool:
    if isinstance(node, ast.Constant):
        return node.value in NAMES
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_names_a_backend(e) for e in node.elts)
    return False


def backend_names_compared(source: str) -> list[tuple[int, str]]:
    """(line, code) of each comparison of something with a backend's name (``x.name ==
    "torch"``, ``s.startswith("jax")``) and each lookup of a backend's library by name
    (``sys.modules.get("torch")``), except those about the user's library."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(map(_names_a_backend, operands)):
                others = " ".join(ast.unparse(o) for o in operands if not _names_a_backend(o))
                if isinstance(node.ops[0], (ast.In, ast.NotIn)) and "sys.modules" in others \
                        or not _ABOUT_THE_USERS_LIBRARY.search(others):
                    found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and any(map(_names_a_backend, node.args)):
            receiver = ast.unparse(node.func.value)
            if node.func.attr in ("startswith", "endswith") \
                    and not _ABOUT_THE_USERS_LIBRARY.search(receiver) \
                    or node.func.attr == "get" and receiver == "sys.modules":
                found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.Subscript) and ast.unparse(node.value) == "sys.modules" \
                and _names_a_backend(node.slice):
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_nothing_outside_the_backends_chooses_by_a_backends_name():
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if "backends" in path.relative_to(PACKAGE).parts:
            continue
        hits = backend_names_compared(path.read_text())
        if hits:
            found[str(path.relative_to(PACKAGE))] = hits
    assert found == {}, "ask a flag or method of backends.base.Backend instead"


@pytest.mark.parametrize("code", [
    'if backend.name == "torch": pass',
    'ok = site.spelled.name != "numpy"',
    'ok = name in ("numpy", "jax")',
    'torch = sys.modules.get("torch")',
    'torch = sys.modules["torch"]',
    'ok = "jax" in sys.modules',
    'ok = backend.startswith("jax")',
])
def test_the_check_finds_names_compared(code):
    assert backend_names_compared(code) != []


@pytest.mark.parametrize("code", [
    'ok = fn.__module__ == "numpy"',
    'ok = type(leaf).__module__ == "numpy"',
    'ok = module == "numpy" or module.startswith("numpy.")',
    'ok = (getattr(fn, "__module__", None) or "").startswith(("numpy", "math"))',
    'ok = rule.family in ("numpy", "math", "scipy")',
    'ok = func.value.value in ("np", "numpy")',
    'p.add_argument("--backend", choices=("numpy", "torch", "jax"))',
])
def test_the_check_allows_the_users_library(code):
    assert backend_names_compared(code) == []


# ------------------------------------------------------------------------ a new backend
class ToyArray(np.ndarray):
    """The toy backend's arrays: NumPy arrays of another type, so that it claims them."""


class ToyBackend(NumpyBackend):
    """A NumPy clone under another name, with arrays of its own: everything else inherited."""

    name = "toy"

    def claims(self, value) -> bool:
        return isinstance(value, ToyArray)

    def as_result(self, value):
        return np.asarray(value).view(ToyArray)

    def from_numpy(self, array, like=None):
        return np.asarray(array).view(ToyArray)

    def runnable(self, function, source: str):
        self.ran.append(function.__name__)     # the generated functions it was given
        return function

    ran: list = []


@pytest.fixture
def toy(monkeypatch):
    """The registration line of a new backend (``backends.KNOWN``), made here, after the
    other backends were in use."""
    assert backends.of_value(np.zeros(1).view(ToyArray)) is None
    monkeypatch.setitem(backends.KNOWN, "toy", f"{__name__}:ToyBackend")
    yield backends.get("toy")


def piecewise(x):
    if x > 1.0:
        return math.sqrt(x) - 1.0
    elif x < -1.0:
        return x * x
    return 0.5 * x


def collatz(n):
    steps = 0
    while n > 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def newton_sqrt(a):
    y = a if a > 1.0 else 1.0
    for _ in range(60):
        if abs(y * y - a) < 1e-12 * a + 1e-300:
            break
        y = 0.5 * (y + a / y)
    return y


OFFSETS = {0: 1.0, 1: 2.0, 2: 4.0}


def table(k, x):
    return (1.5, -2.0, 3.25)[k] * x + OFFSETS[k]


def _inputs(n, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(0.0, 3.0, n)
    x[: min(n, 3)] = [np.nan, np.inf, -0.0][: min(n, 3)]
    return {"piecewise": (x,), "collatz": (rng.integers(1, 60, n),),
            "newton_sqrt": (np.abs(x) + 0.5,), "table": (rng.integers(0, 3, n), x)}


FUNCTIONS = [piecewise, collatz, newton_sqrt, table]


def _loop(f, *args):
    """The reference: the function on each example (NumPy scalars, as `vmap` hands them)."""
    n = len(args[0])
    out = [f(*(np.asarray(a)[i] for a in args)) for i in range(n)]
    return np.asarray(out)


def _same(got, want):
    got = np.asarray(got)
    assert got.shape == want.shape
    if len(want):
        assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("n", [0, 1, 5, 10_000])
@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_a_backend_registered_by_one_line_runs_vmap_by_name(toy, f, n):
    args = _inputs(n)[f.__name__]
    toy.ran.clear()
    batched = vectorize.vmap(f, backend="toy", cache_dir=False)
    with np.errstate(all="ignore"):
        want = _loop(f, *args)
    got = batched(*args)
    assert type(got) is np.ndarray       # NumPy in, NumPy out, computed by the toy backend
    _same(got, want)
    assert toy.ran == [f.__name__]


@pytest.mark.parametrize("n", [0, 1, 5])
@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_a_backend_registered_by_one_line_claims_its_arrays(toy, f, n):
    args = [np.asarray(a).view(ToyArray) for a in _inputs(n, seed=1)[f.__name__]]
    assert backends.of_value(args[0]) == "toy"
    with np.errstate(all="ignore"):
        want = _loop(f, *[np.asarray(a) for a in args])
    toy.ran.clear()
    got = vectorize.vmap(f, cache_dir=False)(*args)
    assert type(got) is ToyArray         # its arrays in, its arrays out
    _same(got, want)
    assert toy.ran == [f.__name__]


@pytest.mark.parametrize("n", [0, 1, 5, 10_000])
@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_a_backend_registered_by_one_line_runs_vectorize(toy, f, n):
    args = _inputs(n, seed=2)[f.__name__]
    with np.errstate(all="ignore"):
        want = np.vectorize(f)(*args) if n else None
    toy.ran.clear()
    got = vectorize.vectorize(f, backend="toy", fallback="error", cache_dir=False)(*args)
    assert toy.ran == [f.__name__]
    if n:
        _same(got, np.asarray(want))
    else:
        assert np.asarray(got).shape == (0,)


def test_a_backend_registered_by_one_line_writes_files(toy, tmp_path):
    from vectorize.cli import main
    source = tmp_path / "mod.py"
    source.write_text("import math\n\nfrom vectorize import vectorize\n\n\n"
                      "@vectorize\ndef piecewise(x: float) -> float:\n"
                      "    if x > 1.0:\n        return math.sqrt(x) - 1.0\n"
                      "    return 0.5 * x\n")
    assert main([str(source), "--backend", "toy", "-w", "-q"]) == 0
    namespace: dict = {}
    exec(compile(source.read_text(), str(source), "exec"), namespace)
    text = source.read_text()
    assert "if x > 1.0" not in text and "np.where" in text     # rewritten, for NumPy's alias
    x = np.array([-2.0, 0.5, 4.0, 9.0, np.inf, -0.0])
    np.testing.assert_array_equal(
        namespace["piecewise"](x),
        np.vectorize(lambda x: math.sqrt(x) - 1.0 if x > 1.0 else 0.5 * x)(x))


# --------------------------------------------------- what the runtime asks of a backend
def two_outputs(x, k):
    y = x * 2.0 + 1.0 if x > 0.0 else -x
    return y, k + 1


# regression: `vmap(f, chunk_size=n)` on a backend that runs one call (JAX) joined the chunks'
# outputs with `torch.cat` (TypeError: expected Tensor ... got jaxlib ArrayImpl)
@pytest.mark.parametrize("n", [0, 1, 5, 10_000])
def test_chunk_size_joins_chunks_with_the_backends_own_concatenate(n):
    jnp = pytest.importorskip("jax.numpy")     # (the `jax` extra: installed where CI runs)
    x = np.linspace(-2.0, 3.0, n)
    k = np.arange(n)
    chunk = max(2, n // 3)          # several chunks, the last one shorter
    for args, kind in [((jnp.asarray(x), jnp.asarray(k)), "jax"), ((x, k), "numpy")]:
        # (JAX's own arrays are float32 / int32 unless x64 is on: the loop gets the same)
        lanes = [np.asarray(a) for a in args]
        want = [_loop(lambda a, b, i=i: two_outputs(a, b)[i], *lanes) for i in (0, 1)]
        got = vectorize.vmap(two_outputs, chunk_size=chunk, backend="jax")(*args)
        for g, w in zip(got, want):
            assert backends.of_value(g) == ("jax" if kind == "jax" else None)
            _same(np.asarray(g), w)
