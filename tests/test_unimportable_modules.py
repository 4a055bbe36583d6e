"""A global bound to a module object that is not importable by its name
(`types.ModuleType("m")` filled by the program, a module loaded from a file without
`sys.modules`) is read as it is (issue 20): the generated code used to `import m`
(ModuleNotFoundError), or worse, import another module of that name."""

from __future__ import annotations

import types

import numpy as np
import pytest
from differential import assert_values_equal

from vectorize import diskcache, vectorize, vmap


def _helper(x):
    if x > 1.0:
        return x + 1.0
    return -x


m = types.ModuleType("m")
m.scale = 3.0
m.table = np.array([1.0, 2.0])
m.helper = _helper

fake = types.ModuleType("math")        # named like a real module, but not that module
fake.sqrt = lambda v: v * 0.0 - 1.0


def uses_m(x):
    return m.helper(x) * m.scale + m.table[0]


def uses_fake(x):
    return fake.sqrt(x) + x


@pytest.mark.parametrize("func", [uses_m, uses_fake], ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", [0, 1, 5, 1000])
def test_read_as_it_is(func, n):
    x = np.linspace(-2.0, 3.0, n)
    want = np.vectorize(func, otypes=[float])(x)
    assert_values_equal(vectorize(func, fallback="error")(x), want)
    if n:
        assert_values_equal(vmap(func, fallback="error")(x), want)


def test_rebinding_its_attributes(monkeypatch):
    x = np.linspace(-2.0, 3.0, 7)
    g = vectorize(uses_m, fallback="error")
    g(x)
    monkeypatch.setattr(m, "scale", -5.0)
    monkeypatch.setattr(m, "helper", lambda v: v * 10.0)
    assert_values_equal(g(x), np.vectorize(uses_m)(x))


def test_not_stored_in_the_disk_cache(tmp_path):
    x = np.linspace(-2.0, 3.0, 7)
    before = dict(diskcache.stats)
    got = vectorize(uses_m, fallback="error", cache_dir=tmp_path / "cache")(x)
    assert_values_equal(got, np.vectorize(uses_m)(x))
    assert diskcache.stats["uncacheable"] == before["uncacheable"] + 1
    assert "not importable" in diskcache.last_reason[0]
