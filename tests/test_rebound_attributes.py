"""Helpers and constants reached through attributes (`helpers.h(x)`, `Cls.h`, `obj.h`,
`Cls.K`) are guarded like globals (issue 20): rebinding the attribute (`mock.patch`,
assignment) makes a new specialization instead of running the code made from the old one.
Each case is checked against numpy.vectorize before, during and after the rebinding."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
import types
from unittest import mock

import numpy as np
import pytest
from differential import assert_values_equal

from vectorize import vectorize, vmap

HELPERS = """\
import numpy as np


def h(x):
    if x > 1.0:
        return x * 2.0
    return -x


def other(x):
    return x - 100.0


class Cls:
    K = 3.0

    @staticmethod
    def h(x):
        return x + 1.0

    @classmethod
    def c(cls, x):
        return x * cls.K


class Obj:
    def __init__(self):
        self.h = h


obj = Obj()
inner = type("Inner", (), {"h": staticmethod(h)})
"""


@pytest.fixture
def helpers(tmp_path):
    name = f"vz_rebound_{tmp_path.name}"
    path = tmp_path / f"{name}.py"
    path.write_text(HELPERS)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    yield module
    del sys.modules[name]


def rebindings(helpers):
    """Each case's rebinding, as a context manager."""
    return {
        "via_module": mock.patch(f"{helpers.__name__}.h", helpers.other),
        "via_class": mock.patch.object(helpers.Cls, "h", staticmethod(helpers.other)),
        "via_instance": mock.patch.object(helpers.obj, "h", helpers.other),
        "via_class_constant": mock.patch.object(helpers.Cls, "K", -7.0),
        "via_chain": mock.patch.object(helpers.inner, "h", staticmethod(helpers.other)),
    }


CASES = ["via_module", "via_class", "via_instance", "via_class_constant", "via_chain"]


def check(g, f, x):
    assert_values_equal(g(x), np.vectorize(f, otypes=[float])(x))


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("front", ["vectorize", "vmap"])
def test_rebinding_an_attribute_respecializes(helpers, case, front, tmp_path):
    funcs = _functions(helpers, tmp_path)
    f = funcs[case]
    g = vectorize(f, fallback="error") if front == "vectorize" else vmap(f, fallback="error")
    for n in (0, 1, 5, 1000):
        x = np.linspace(-2.0, 3.0, n)
        check(g, f, x)
        check(g, f, x)          # warm
        with rebindings(helpers)[case]:
            check(g, f, x)
            check(g, f, x)
        check(g, f, x)


def _functions(helpers, tmp_path):
    """`make`'s functions, written to a file of their own so that their source can be read."""
    path = tmp_path / "users_code.py"
    path.write_text(textwrap.dedent("""\
        def via_module(x):
            return helpers.h(x) * 2.0


        def via_class(x):
            return helpers.Cls.h(x) * 2.0


        def via_instance(x):
            return helpers.obj.h(x) * 2.0


        def via_class_constant(x):
            return x * helpers.Cls.K


        def via_chain(x):
            return helpers.inner.h(x)
        """))
    name = f"vz_users_{tmp_path.name}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    module.helpers = helpers
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return {case: getattr(module, case) for case in CASES}


def test_a_closure_root_is_guarded_too(helpers, tmp_path):
    path = tmp_path / "closure_code.py"
    path.write_text(textwrap.dedent("""\
        def make(ns):
            def f(x):
                return ns.h(x) + 1.0
            return f
        """))
    spec = importlib.util.spec_from_file_location(f"vz_closure_{tmp_path.name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    ns = types.SimpleNamespace(h=helpers.h)
    f = module.make(ns)
    g = vectorize(f, fallback="error")
    x = np.linspace(-2.0, 3.0, 7)
    check(g, f, x)
    ns.h = helpers.other
    check(g, f, x)


def test_warm_calls_do_not_transform_again(helpers, tmp_path, monkeypatch):
    """A guard on an attribute whose every read gives a new object (a bound method) would
    fail on every call: methods are guarded by their function."""
    calls = []
    real = sys.modules["vectorize.transform"].transform_function

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(sys.modules["vectorize.transform"], "transform_function", counting)
    funcs = _functions(helpers, tmp_path)
    x = np.linspace(-2.0, 3.0, 7)
    for case in CASES:
        g = vectorize(funcs[case], fallback="error", cache_dir=False)
        for _ in range(3):
            g(x)
    assert len(calls) == len(CASES)


def test_an_instance_array_rebound_each_step_is_read_not_guarded(tmp_path, monkeypatch):
    """`params.w = params.w - lr * g` in a training loop: the code reads `params.w` when it
    runs, so each step reuses the specialization instead of transforming again."""
    calls = []
    real = sys.modules["vectorize.transform"].transform_function

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(sys.modules["vectorize.transform"], "transform_function", counting)
    path = tmp_path / "params_code.py"
    path.write_text(textwrap.dedent("""\
        import types
        import numpy as np

        params = types.SimpleNamespace(w=np.array([1.0, 2.0]), scale=0.5)


        def model(x):
            return x * params.w[0] + params.w[1] * params.scale
        """))
    spec = importlib.util.spec_from_file_location(f"vz_params_{tmp_path.name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    g = vectorize(module.model, fallback="error", cache_dir=False)
    x = np.linspace(-1.0, 1.0, 5)
    for step in range(4):
        module.params.w = module.params.w - 0.1 * step
        module.params.scale = 0.5 + step
        assert_values_equal(g(x), np.vectorize(module.model)(x))
    assert len(calls) == 1
