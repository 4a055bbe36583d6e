"""Facts of one transform are that transform's own: the lane types of a value (int on some
lanes, float on others), a deferred join (PyTorch: an int tensor on some lanes, a float32 on
others, refused where it is read), the value ranges' sources of helpers (a helper being read
is marked until it is), the JAX backend's helpers that write into their parameters. Two
transforms at once (in two threads, started together at a barrier; or one inside another)
give the same generated source, or the same refusal, as each alone."""

from __future__ import annotations

import math
import sys
import threading
import types

import numpy as np
import pytest

import vectorize.transform as transform
from vectorize import VectorizeError, memo, vectorize, vmap


@pytest.fixture(autouse=True)
def _engine_every_time(monkeypatch):
    """Every transform runs the engine (no in-process memo, no disk cache)."""
    monkeypatch.setattr(memo, "load", lambda *args: None)


def inverse(v):
    return 1.0 / v


def positive(x):
    return inverse(abs(x) + 1.0)       # (proved positive: no zero-divisor check in `inverse`)


def mixed(x, n):
    r = n if x > 0 else 2.5            # an int on some lanes, a float on others
    return min(r, x) * 2


def mixed_str(x):
    s = 0
    if x > 0:
        s = x * 0.5
    return len(str(s)) + math.floor(s)


def bump(w, i):
    w[i] += 1.0


def written(x):
    w = np.zeros(3)
    bump(w, 0)                         # a helper that writes into its parameter
    return w * x


def deferred(k, y):
    r = k if y > 0 else y              # an int32 tensor on some lanes, a float32 on others
    return r


def deferred_read(k, y):
    r = k if y > 0 else y
    return r + 1                       # refused here


_X = np.linspace(-2.0, 2.0, 5)


def _numpy_cases():
    return [
        ("positive", lambda: vectorize(positive, cache_dir=False).source(_X)),
        ("mixed", lambda: vectorize(mixed, cache_dir=False).source(_X, np.arange(5))),
        ("mixed_str", lambda: vectorize(mixed_str, cache_dir=False).source(_X)),
        ("written", lambda: vmap(written, cache_dir=False).source(_X)),
    ]


def _other_cases():
    torch = pytest.importorskip("torch")
    jnp = pytest.importorskip("jax.numpy")
    k, y = torch.arange(4, dtype=torch.int32), torch.linspace(-1.0, 1.0, 4)
    return [
        ("deferred", lambda: vmap(deferred, cache_dir=False).source(k, y)),
        ("deferred_read", lambda: vmap(deferred_read, cache_dir=False).source(k, y)),
        ("written_jax", lambda: vmap(written, backend="jax", cache_dir=False).source(
            jnp.linspace(-1, 1, 4))),
    ]


def _outcome(make):
    try:
        return make()
    except VectorizeError as exc:
        return f"refused: {exc}"


def _at_once(cases):
    """Each case's outcome, made in its own thread, all started together at a barrier and
    switching threads as often as the interpreter allows."""
    barrier = threading.Barrier(len(cases))
    out: dict = {}

    def run(name, make):
        barrier.wait()
        out[name] = _outcome(make)

    threads = [threading.Thread(target=run, args=case) for case in cases]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    return out


@pytest.mark.parametrize("cases", [_numpy_cases, _other_cases], ids=["numpy", "torch_jax"])
def test_transforms_in_threads_at_once_give_each_ones_source(cases):
    cases = cases()
    alone = {name: _outcome(make) for name, make in cases}
    assert alone["deferred_read" if "deferred_read" in alone else "written"] != ""
    if "deferred_read" in alone:        # (the deferred join is recorded, and refused)
        assert alone["deferred_read"].startswith("refused") and "holds an int32" in alone[
            "deferred_read"]
        assert not alone["deferred"].startswith("refused")
    # every case twice, so that two transforms of the same function also run at once
    together = _at_once(cases + [(name + "'", make) for name, make in cases])
    for name, _make in cases:
        assert together[name] == alone[name], name
        assert together[name + "'"] == alone[name], name


def _fresh_positive():
    """Copies of `inverse` and of `positive` calling it: functions no transform has read."""
    helper = types.FunctionType(inverse.__code__, inverse.__globals__, "inverse")
    caller = types.FunctionType(positive.__code__, {**positive.__globals__,
                                                    "inverse": helper}, "positive")
    return caller, helper


def test_a_transform_inside_another_while_it_reads_a_helper_proves_its_signs(monkeypatch):
    # the outer transform marks `inverse` as being read (for its argument's signs) while it
    # reads it; a transform that runs meanwhile (another thread, or here inside it) reads it
    # for itself: it proves `abs(x) + 1.0` positive, no zero-divisor check (before: it took
    # the other's mark for a helper it cannot read and kept the check)
    caller, _helper = _fresh_positive()
    alone = vectorize(caller, cache_dir=False).source(_X)
    assert "ZeroDivisionError" not in alone, alone
    outer, helper = _fresh_positive()
    inner: list = []
    real = transform.read_function

    def reading(fn):
        if fn is helper and not inner:
            inner.append(None)
            again = types.FunctionType(positive.__code__, outer.__globals__, "positive")
            inner[0] = vectorize(again, cache_dir=False).source(_X)
        return real(fn)

    monkeypatch.setattr(transform, "read_function", reading)
    assert vectorize(outer, cache_dir=False).source(_X) == alone
    assert inner == [alone]
