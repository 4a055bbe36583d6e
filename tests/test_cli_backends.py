"""``python -m vectorize FILE --backend numpy|torch|jax``: the rewritten file is written for
that array library and imports only it (no vectorize, no other array library); it imports,
runs and computes what the original computes, on random inputs (an ``if``, an
``if``/``elif`` chain, a ``while`` whose examples stop at different times), and passes ruff.
"""

from __future__ import annotations

import importlib.util
import itertools
import pathlib
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest
from test_cli import cli

FILES = pathlib.Path(__file__).parent / "cli_files"
KERNELS = FILES / "backend_kernels.py"
_names = itertools.count()
IMPORTED = {"numpy": {"numpy"}, "torch": {"torch"}, "jax": {"jax", "jax.numpy"}}


def load(path: pathlib.Path):
    spec = importlib.util.spec_from_file_location(f"cli_backend_{next(_names)}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def imports_of(text: str) -> set[str]:
    out = set()
    for line in text.splitlines():
        if m := re.match(r"import ([\w.]+)", line):
            out.add(m.group(1))
        elif m := re.match(r"from ([\w.]+) import", line):
            out.add(m.group(1))
    return out


def inputs(n: int):
    rng = np.random.default_rng(n)
    return {"seed": (rng.uniform(-2, 10, n), 1.5), "piecewise": (rng.uniform(-2, 5, n),),
            "escape": (rng.uniform(-2.0, 0.6, n), rng.uniform(-1.2, 1.2, n))}


@pytest.mark.parametrize("backend", ["numpy", "torch", "jax"])
def test_file_written_for_a_backend_runs_and_equals_the_original(backend, tmp_path):
    pytest.importorskip(backend)
    path = tmp_path / "kernels.py"
    shutil.copy(KERNELS, path)
    result = cli("--backend", backend, "-w", path)
    assert result.returncode == 0, result.stderr.decode()
    text = path.read_text()
    assert imports_of(text) <= IMPORTED[backend] | ({"jax"} if backend == "jax" else set()), \
        imports_of(text)
    assert imports_of(text) & IMPORTED[backend]
    assert "vectorize" not in text
    if backend == "jax":
        assert "lax.while_loop(" in text and "def promote_carry(" in text
    ruff = shutil.which("ruff")
    cmd = [ruff] if ruff else [sys.executable, "-m", "ruff"]
    lint = subprocess.run([*cmd, "check", "--isolated", "--output-format", "concise",
                           str(path)], capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    jax = sys.modules.get("jax")
    x64 = jax.config.jax_enable_x64 if jax is not None else None
    try:
        compare(load(KERNELS), load(path))
    finally:
        # a file written for JAX enables x64 for the process (as its comment says): this
        # process' other tests expect JAX's default
        if backend == "jax":
            sys.modules["jax"].config.update("jax_enable_x64", bool(x64))


def compare(original, rewritten):
    for n in (0, 1, 7, 1000):
        for name, args in inputs(n).items():
            want = getattr(original, name)(*args)
            got = np.asarray(getattr(rewritten, name)(*args))
            assert got.shape == want.shape, (name, n)
            assert got.dtype.kind == want.dtype.kind, (name, n, got.dtype, want.dtype)
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=0, err_msg=f"{name} {n}")


def test_unknown_backend_is_a_usage_error():
    result = cli("--backend", "cupy", KERNELS)
    assert result.returncode == 2 and b"invalid choice" in result.stderr


LISTS = '''\
from vectorize import vectorize


@vectorize
def fdiv(a, b):
    return a // b


@vectorize
def blend(a, b):
    if a > b:
        return a - b
    return a * b
'''


@pytest.mark.parametrize("backend", ["numpy", "jax"])
def test_a_two_argument_function_called_with_lists(backend, tmp_path):
    """numpy.vectorize (and the decorator) take lists; JAX's broadcast_arrays does not: the
    JAX file raised TypeError where the original ran (hunt7)."""
    pytest.importorskip(backend)
    original, path = tmp_path / "original.py", tmp_path / "lists.py"
    original.write_text(LISTS)
    path.write_text(LISTS)
    result = cli("--backend", backend, "-w", path)
    assert result.returncode == 0, result.stderr.decode()
    jax = sys.modules.get("jax")
    x64 = jax.config.jax_enable_x64 if jax is not None else None
    try:
        before, after = load(original), load(path)
        for name, args in [("fdiv", ([7.0, -7.0, 1e16], [2.0, 0.5, 3.0])),
                           ("blend", ([1.0, -2.0], [0.5, 4.0])), ("blend", ([1.0], 2.0)),
                           ("blend", ([[1.0], [3.0]], [2.0, 0.5]))]:
            want = getattr(before, name)(*args)
            got = np.asarray(getattr(after, name)(*args))
            assert got.shape == want.shape and got.dtype == want.dtype, name
            np.testing.assert_array_equal(got, want, err_msg=name)
    finally:
        if backend == "jax":
            sys.modules["jax"].config.update("jax_enable_x64", bool(x64))


FLOAT_ITEMS = '''\
import math

from vectorize import vectorize

VALUES = [0.1, 1e-300, 1 / 3, -0.0]


@vectorize
def scale(x, b=3.0):
    return x * b


def listed():
    return [scale(x) for x in VALUES]


def total():
    acc = 0.0
    for x in [1e-300, 0.1, math.pi]:
        acc += scale(x, 2.0)
    return acc
'''


def test_a_torch_call_site_over_python_floats_keeps_float64(tmp_path):
    """`torch.asarray` of Python floats is float32 (PyTorch's default dtype): the loop's
    items are float64, so the batched call was float32 and 1e-300 * 3 was 0.0 (hunt7)."""
    torch = pytest.importorskip("torch")
    original, path = tmp_path / "original.py", tmp_path / "items.py"
    original.write_text(FLOAT_ITEMS)
    path.write_text(FLOAT_ITEMS)
    result = cli("--backend", "torch", "-w", path)
    assert result.returncode == 0, result.stderr.decode()
    assert "torch.asarray(VALUES, dtype=torch.float64)" in path.read_text()
    before, after = load(original), load(path)
    got, want = after.listed(), before.listed()
    assert [torch.as_tensor(g).dtype for g in got] == [torch.float64] * 4
    assert [float(g) for g in got] == [float(w) for w in want]
    assert float(after.total()) == float(before.total())


CHECKED_LOOPS = '''\
import math

from vectorize import vmap

TABLE = (1.0, 2.0, 4.0)


@vmap
def newton(a: float):
    x = a
    while abs(x * x - a) > 1e-9:
        if x == 0:
            raise ValueError("zero")
        x = 0.5 * (x + a / x)
    return math.sqrt(x)


@vmap
def halve(a: float, stop: float):
    x = a
    n = 0
    while x > stop:
        if x < 1.0:
            raise ValueError(f"below one at {x} after {n} steps")
        x = x / 2
        n += 1
    return n


@vmap
def nested(a: float):
    total = 0.0
    k = a
    while k > 1.0:
        y = k
        while y > 0.5:
            if y < 0.7:
                raise ArithmeticError(f"inner {y}")
            y = y - 0.25
        total += y
        k = k - 1.0
    return total


@vmap
def first_over(a: float, limit: float):
    total = 0.0
    for k in range(50):
        if total > 100.0:
            raise OverflowError(f"total {total} over 100")
        total += a * k
        if total > limit:
            break
    return total


@vmap
def series(x: float):
    s = 0.0
    for k in range(40):
        if x == k:
            raise ZeroDivisionError(f"pole at {x}")
        s += 1.0 / (x - k)
    return s


@vmap
def table_walk(a: float, i: int):
    s = 0.0
    while a > 1.0:
        s += TABLE[i]
        a = a / 2
    return s
'''

# (function, arguments that raise nowhere, arguments where exactly one example raises)
CHECKED_CALLS = [
    ("newton", ([4.0, 9.0, 0.0, 2.5],), None),
    ("halve", ([4.0, 9.0, 0.5], [1.0, 0.9, 2.0]), ([4.0, 3.0, 9.0], [1.0, 0.1, 0.9])),
    ("nested", ([0.5, 1.45, 3.0],), ([0.5, 2.6, 1.5],)),
    ("first_over", ([0.5, 1.0, 3.0], [10.0, 50.0, 90.0]), ([0.5, 9.0, 1.0], [10.0, 500.0, 50.0])),
    ("series", ([0.5, -3.0, 41.5],), ([0.5, 17.0, 41.5],)),
    ("table_walk", ([4.0, 9.0, 0.5], [0, 2, 5]), ([4.0, 9.0, 0.5], [0, 3, 1])),
]


def _per_example(function, args):
    """The reference: the undecorated function over the examples (NumPy scalars, as
    ``vmap``'s per-example loop passes them)."""
    rows = list(zip(*[np.asarray(a) for a in args]))
    try:
        return np.array([function(*row) for row in rows]), None
    except Exception as exc:  # noqa: BLE001 -- compared below
        return None, exc


@pytest.mark.parametrize("backend", ["numpy", "jax"])
def test_checks_inside_loops_of_a_written_file_run_and_raise(backend, tmp_path):
    """A check (a ``raise`` some examples reach) inside a loop whose examples stop at
    different times: under JAX the loop is a ``lax.while_loop`` (or ``fori_loop``), whose body
    is traced even without ``jit``, where the ``if jnp.any(...): raise`` the file had crashed
    (TracerBoolConversionError, jax26). The written file runs, equals the per-example loop,
    and raises the first failing example's exception as written (type and message); for
    NumPy too, as the reference of what the file does."""
    pytest.importorskip(backend)
    path = tmp_path / "checked.py"
    path.write_text(CHECKED_LOOPS)
    result = cli("--backend", backend, "-w", path)
    assert result.returncode == 0, result.stderr.decode()
    text = path.read_text()
    if backend == "jax":
        assert "lax.while_loop(" in text and "lax.fori_loop(" in text
        assert "raise" not in text.split("def newton")[1].split("_, error")[0]
    reference = {}
    exec(compile(CHECKED_LOOPS.replace("@vmap\n", ""), "reference", "exec"), reference)
    jax = sys.modules.get("jax")
    x64 = jax.config.jax_enable_x64 if jax is not None else None
    try:
        written = load(path)
        for name, fine, failing in CHECKED_CALLS:
            function = getattr(written, name)
            for n in (0, 1, 1000):      # (N = 5: `test_jax_loops`, the same functions)
                args = [np.resize(np.asarray(a), n) for a in fine]
                want, exc = _per_example(reference[name], args)
                assert exc is None, (name, exc)
                got = np.asarray(function(*args))
                assert got.shape == want.shape, name
                if n:   # (the reference's empty array has no dtype of the function's)
                    assert got.dtype.kind == want.dtype.kind, (name, got.dtype, want.dtype)
                np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=f"{name} {n}")
            if failing is None:
                continue
            args = [np.asarray(a) for a in failing]
            _, want = _per_example(reference[name], args)
            assert want is not None, name
            with pytest.raises(type(want)) as raised:
                function(*args)
            assert type(raised.value) is type(want), (name, raised.value)
            if type(want) is not IndexError:     # (a tuple's message is not NumPy's)
                assert str(raised.value) == str(want), name
    finally:
        if backend == "jax":
            sys.modules["jax"].config.update("jax_enable_x64", bool(x64))
