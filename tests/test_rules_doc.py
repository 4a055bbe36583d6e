"""docs/rules.md is generated from the rule registries and must be current; every rule has an
anchor (what `explain` links to), its backends, and an example that runs: batched, it computes
what the loop over its examples computes, the rule fires on it, and the batched form the page
shows is what the engine generates for it today (the page is rendered from the engine)."""

import math
import pathlib
import re

import numpy as np
import pytest

from vectorize import VectorizeError, backends
from vectorize.rules import NUMPY
from vectorize.rules import examples as ex
from vectorize.rules.doc import BACKENDS, backend_rules, entries, render

DOC = pathlib.Path(__file__).parent.parent / "docs" / "rules.md"
torch = pytest.importorskip("torch")     # the torch column asks torch's registry

RUN = ex.ALL
ENGINE = {name for name, _, _ in entries()} - {
    name for b in BACKENDS for name in backends.get(b).registry.rules_by_name()}


def test_rules_page_is_current():
    assert DOC.read_text() == render(), "run: python -m vectorize.rules.doc > docs/rules.md"


def test_every_rule_of_every_backend_is_documented_with_an_anchor():
    text = DOC.read_text()
    anchors = re.findall(r'<a id="([^"]+)"></a>\n\n### `([^`]+)`', text)
    assert all(a == b for a, b in anchors)
    documented = {a for a, _ in anchors}
    for backend in BACKENDS:
        for rule in backends.get(backend).registry.all_rules:
            if rule.family != "user":
                assert rule.name in documented, rule.name
                assert rule.explanation and rule.before and rule.after, rule
    assert ENGINE <= documented and len(anchors) == len(documented)


def test_every_rule_has_an_example():
    assert {name for name, _, _ in entries()} == set(RUN)
    assert {r.name for r in NUMPY.all_rules} | ENGINE <= set(ex.EXAMPLES) | set(
        ex.ENGINE_EXAMPLES)


def test_the_backend_columns_are_the_registries():
    have = backend_rules()
    table = dict(re.findall(r"^\| \[`([^`]+)`\]\(#[^)]+\) \| [^|]+ \| (.*) \|$", DOC.read_text(),
                            re.M))
    for name, marks in table.items():
        for backend, mark in zip(BACKENDS, marks.split(" | ")):
            assert (mark == "yes") == (name in have[backend]), (name, backend)
    assert "divmod" not in str(set(backends.get("torch").registry.rules_by_name()))
    columns = {name: dict(zip(BACKENDS, marks.split(" | "))) for name, marks in table.items()}
    assert all(len(marks.split(" | ")) == len(BACKENDS) for marks in table.values())
    assert columns["builtin.divmod"]["numpy"] == "yes" and columns["builtin.divmod"]["torch"] == "-"
    assert columns["math.sqrt"]["numpy"] == columns["math.sqrt"]["torch"] == "yes"
    assert set(table) == {name for name, _, _ in entries()}   # every rule of every backend
    if "jax" in BACKENDS:
        # JAX's code cannot compact lanes (its capability flags); it writes into arrays as
        # functional updates
        assert columns["if.compact"]["jax"] == "-" and columns["array.scatter"]["jax"] == "yes"
        assert columns["builtin.divmod"]["jax"] == "yes"


def _loop(example, func, args):
    """The reference: one call per example (Python numbers for `vectorize`, as
    numpy.vectorize hands them; rows for `vmap`), results stacked."""
    if example.in_axes is None:
        arrays = [a.reshape(-1) for a in np.broadcast_arrays(*[np.asarray(a) for a in args])]
        results = [func(*[a[i].item() for a in arrays]) for i in range(arrays[0].size)]
    else:
        n = len(next(a for a, axis in zip(args, example.in_axes) if axis is not None))
        results = [func(*[a[i] if axis is not None else a
                          for a, axis in zip(args, example.in_axes)]) for i in range(n)]
    if example.backend == "torch":     # Python numbers per example are double precision
        exact = {float: torch.float64, complex: torch.complex128}
        return torch.stack([torch.as_tensor(r, dtype=exact.get(type(r))) for r in results])
    if results and isinstance(results[0], tuple):
        return tuple(np.array(r) for r in zip(*results))
    return np.array(results) if example.in_axes is None else np.stack(results)


def _same(actual, expected):
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected)
        for a, e in zip(actual, expected):
            _same(a, e)
        return
    if isinstance(actual, torch.Tensor) or isinstance(expected, torch.Tensor):
        assert isinstance(actual, torch.Tensor) and isinstance(expected, torch.Tensor)
        assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
        actual, expected = actual.detach().numpy(), expected.detach().numpy()
    actual = np.asarray(actual)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    assert actual.dtype.kind == expected.dtype.kind or {actual.dtype.kind,
                                                        expected.dtype.kind} <= {"i", "u"}
    if expected.dtype.kind in "US":     # strings: the same items, the same width
        assert actual.dtype == expected.dtype and actual.tolist() == expected.tolist()
        return
    np.testing.assert_allclose(actual, expected, rtol=1e-12, atol=0, equal_nan=True)


@pytest.mark.parametrize("name", sorted(RUN))
def test_the_example_runs_and_equals_the_loop(name):
    example = RUN[name]
    func = ex.function(example, f"<rule {name}>")
    args = ex.arguments(example)
    if name in ex.REFUSED:
        with pytest.raises(VectorizeError, match=r"<rule .*>:\d+:\d+"):
            ex.batched(example, func)(*args)
        return
    spec = ex.specialization(example, func, args)
    fired = {rule for rule, _, _ in spec.explanations}
    if name not in ENGINE:
        assert name in fired, fired
    out = ex.batched(example, func)(*args)
    if name in ex.RANDOM:
        drawn = np.asarray(out) - np.asarray(args[0])
        assert drawn.shape == np.shape(args[0]) and len(set(drawn.tolist())) > 1
        return
    _same(out, _loop(example, func, args))


TORCH_RUNNABLE = sorted(name for name, e in RUN.items() if e.backend == "numpy"
                        and "np." not in e.source
                        and name in backend_rules()["torch"] and name not in ex.REFUSED
                        and name not in ex.RANDOM
                        and ".astype(" not in e.source
                        # (NumPy's `.copy()`; PyTorch's `.clone()`: tests/test_torch_writes.py)
                        and ".copy()" not in e.source)


# examples whose per-example code raises on a tensor (a tensor has no `__round__` or
# `__trunc__`): the batched code is refused, as the loop fails
LOOP_RAISES_ON_TENSORS = {"builtin.round", "math.trunc"}
# examples that look a dict up by a per-example key: per example a 0-d tensor hashes by
# identity, so the loop finds no key (`.get` gives its default): refused on tensors (a key
# that is a Python number per example, `int(k)`, runs: tests/test_torch33.py)
LOOP_FINDS_NO_KEY_ON_TENSORS = {"builtin.dict_get"}
KNOWN_TORCH_GAPS: dict[str, str] = {   # refused on tensors although the loop works: engine
    "sum.item": "a local list bound to lists of different lengths on different paths (what "
                "makes `sum` of a generator over it a loop) is refused on tensors",
}


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=KNOWN_TORCH_GAPS[n]))
    if n in KNOWN_TORCH_GAPS else n for n in TORCH_RUNNABLE])
def test_the_torch_column_runs_the_example_on_tensors(name):
    """The rules the torch column claims, on the examples written without NumPy: on float64
    and int64 tensors, under `vmap`, the same as the loop over the examples."""
    from vectorize import vmap
    example = RUN[name]
    func = ex.function(example, f"<rule {name}>")
    args = ex.arguments(example)
    axes = example.in_axes or tuple(0 if isinstance(a, np.ndarray) else None for a in args)
    tensors = tuple(torch.as_tensor(a) if isinstance(a, np.ndarray) else a for a in args)
    rows = [[t[i] if axis is not None else t for t, axis in zip(tensors, axes)]
            for i in range(len(tensors[0]))]
    if name in LOOP_RAISES_ON_TENSORS:
        with pytest.raises(TypeError):
            func(*rows[0])
        with pytest.raises(VectorizeError, match="tensor"):
            vmap(func, axes, fallback="error", cache_dir=False)(*tensors)
        return
    if name in LOOP_FINDS_NO_KEY_ON_TENSORS:
        assert all(func(*row) == 0.0 for row in rows)      # (`TABLE.get(k, 0.0)`)
        with pytest.raises(VectorizeError, match="hashes by identity"):
            vmap(func, axes, fallback="error", cache_dir=False)(*tensors)
        return
    out = vmap(func, axes, fallback=example.fallback, cache_dir=False)(*tensors)
    expected = [func(*row) for row in rows]
    if isinstance(expected[0], tuple):
        expected = tuple(torch.stack([torch.as_tensor(v) for v in vs]) for vs in zip(*expected))
    else:
        expected = torch.stack([torch.as_tensor(v, dtype=out.dtype) for v in expected])
    _same(out, expected)


def test_the_examples_cover_the_math_module_they_claim():
    assert math is not None and all(f"math.{n}(" in RUN[f"math.{n}"].source
                                    for n in ("sqrt", "log", "frexp"))


def test_writes_into_created_tensors_are_in_the_torch_column(tmp_path):
    """`array.scatter` on tensors (was NumPy's only: refused, "writing into `y`"): the
    tensor the function creates is written into as NumPy's arrays are."""
    from vectorize import vmap
    assert "array.scatter" in backend_rules()["torch"]
    path = tmp_path / "scatter.py"
    path.write_text("import torch\n\n\ndef f(x):\n    y = torch.zeros(3, dtype=torch.float64)\n"
                    "    y[0] = x\n    return y\n")
    namespace = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    x = torch.tensor([1.5, -2.0], dtype=torch.float64)
    got = vmap(namespace["f"], fallback="error", cache_dir=False)(x)
    _same(got, torch.stack([namespace["f"](t) for t in x]))
