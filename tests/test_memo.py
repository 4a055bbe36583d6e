"""The in-process memo of transforms (`vectorize.memo`): a fresh ``vectorize``/``vmap`` object
asking what an earlier one asked gets the same code without the engine, and never where
anything the code was made from changed since: the function's source (a module reloaded), a
helper, a global or closure value (rebound or mutated in place), a value reached through an
attribute, a pass of the engine (replaced at run time). Every result is checked against the
per-example loop (`differential.assert_matches_loop`), and a memo hit still goes to the disk
cache.
"""

from __future__ import annotations

import importlib.util
import sys
import textwrap

import numpy as np
import pytest
from differential import assert_matches_loop

from vectorize import diskcache, memo, vmap
from vectorize import vectorize as vz

_loaded = [0]


def load_module(tmp_path, text: str, name: str | None = None):
    """``text`` as a new module (a new module object each time, as after a reload)."""
    if name is None:
        _loaded[0] += 1
        name = f"vz_memo_{_loaded[0]}"
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(text))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def delta(before):
    return {k: v - before[k] for k, v in memo.stats.items() if v != before[k]}


@pytest.fixture(autouse=True)
def _no_disk_cache(monkeypatch):
    monkeypatch.delenv("VECTORIZE_CACHE_DIR", raising=False)


X = np.array([-2.0, -0.0, 0.5, 3.0, np.inf, np.nan])

MODULE = """\
import math

SCALE = 2.0
TABLE = [1.0, 2.0]


def helper(v):
    return v * SCALE


def f(x):
    if x > 1:
        y = helper(x) + TABLE[0]
    else:
        y = -x
    return y
"""


def test_a_fresh_object_reuses_the_code_without_the_engine(tmp_path, monkeypatch):
    mod = load_module(tmp_path, MODULE)
    first = vz(mod.f, fallback="error", cache_dir=False)
    first(X)
    text = first.source(X)
    import vectorize.transform as transform

    def no_engine(*args, **kwargs):
        raise AssertionError("the engine ran on a memo hit")

    before = dict(memo.stats)
    with monkeypatch.context() as patch:
        patch.setattr(transform.ModuleContext, "__init__", no_engine)
        again = vz(mod.f, fallback="error", cache_dir=False)
        assert again.source(X) == text
        assert_matches_loop(mod.f, X)
    assert delta(before) == {"hits": 2}
    for n in (0, 1, 5, 10_000):
        assert_matches_loop(mod.f, np.linspace(-3.0, 3.0, n))


@pytest.mark.parametrize("change", ["global", "global list in place", "helper", "source"])
def test_a_change_of_what_the_code_read_runs_the_engine_again(tmp_path, change):
    mod = load_module(tmp_path, MODULE, name=f"vz_memo_change_{change.replace(' ', '_')}")
    assert_matches_loop(mod.f, X)
    old = vz(mod.f, fallback="error", cache_dir=False).source(X)
    if change == "global":
        mod.SCALE = -5.0
    elif change == "global list in place":
        mod.TABLE[0] = 100.0
    elif change == "helper":
        mod.helper = lambda v: v + 7.0
    else:     # the file edited and loaded again: a new function, another source
        mod = load_module(tmp_path, MODULE.replace("-x", "x * 3"), name=mod.__name__)
    before = dict(memo.stats)
    assert_matches_loop(mod.f, X)
    assert delta(before).get("hits", 0) == 0
    if change in ("helper", "source"):     # (a global's value is read when the code runs)
        assert vz(mod.f, fallback="error", cache_dir=False).source(X) != old


def test_closures_of_one_code_keep_their_own_values():
    def make(k):
        def g(x):
            return x * k if x > 0 else x - k
        return g

    for k in (1.0, -3.0, 1.0, 0.5):
        assert_matches_loop(make(k), X)


def test_a_value_reached_through_an_attribute_is_checked(tmp_path):
    helpers = load_module(tmp_path, "K = 2.0\n")
    mod = load_module(tmp_path, f"import {helpers.__name__} as h\n\n\n"
                                "def f(x):\n    return x * h.K\n")
    assert_matches_loop(mod.f, X)
    helpers.K = -4.0
    before = dict(memo.stats)
    assert_matches_loop(mod.f, X)
    assert delta(before).get("hits", 0) == 0


def test_a_replaced_pass_is_another_engine(monkeypatch):
    from vectorize.passes import temporaries

    def f(x):
        y = 2 * x + 1         # the pass makes it `y = 2 * x`, `y += 1`
        return y

    with_pass = vz(f, fallback="error", cache_dir=False).source(X)
    monkeypatch.setattr(temporaries, "transform", lambda tree, ctx: tree)
    without = vz(f, fallback="error", cache_dir=False).source(X)
    assert without != with_pass
    monkeypatch.undo()
    assert vz(f, fallback="error", cache_dir=False).source(X) == with_pass


def test_arguments_policies_and_front_ends_are_separate_questions():
    def f(x, w):
        return x * w if x > 0 else w

    assert_matches_loop(f, X, 2.0)
    assert_matches_loop(f, X.astype(np.float32), 2.0)
    assert_matches_loop(f, np.arange(-3, 3), np.int64(2))
    rows = np.arange(12.0).reshape(4, 3)
    got = vmap(f, in_axes=(0, None), fallback="error", cache_dir=False)(rows[:, 0], 2.0)
    again = vmap(f, in_axes=(0, None), fallback="error", cache_dir=False)(rows[:, 0], 2.0)
    np.testing.assert_array_equal(got, again)
    np.testing.assert_array_equal(got, [f(r, 2.0) for r in rows[:, 0]])


class Box:
    scale = 3.0


BOX = Box()


def reads_an_object(x):
    return x * BOX.scale


def test_what_has_no_print_is_not_memoized():
    before = dict(memo.stats)
    assert_matches_loop(reads_an_object, X)
    BOX.scale = -1.0
    try:
        assert_matches_loop(reads_an_object, X)
    finally:
        BOX.scale = 3.0
    assert delta(before).get("hits", 0) == 0


def test_a_memo_hit_is_still_written_to_the_disk_cache(tmp_path):
    mod = load_module(tmp_path, MODULE)
    out = vz(mod.f, fallback="error", cache_dir=False)(X)
    before = dict(diskcache.stats)
    before_memo = dict(memo.stats)
    again = vz(mod.f, fallback="error", cache_dir=tmp_path / "cache")(X)
    assert delta(before_memo) == {"hits": 1}
    assert diskcache.stats["writes"] == before["writes"] + 1
    np.testing.assert_array_equal(out, again)


def test_the_memo_is_bounded(monkeypatch):
    monkeypatch.setattr(memo, "MAX_ENTRIES", 3)

    def f(x, mode):
        return x * 2 if mode == "m0" else x - 1

    for n in range(6):       # a short string is specialized on: a question per value
        assert_matches_loop(f, X, f"m{n}", excluded={1})
    assert len(memo._entries) <= 3


def test_an_object_argument_is_not_memoized():
    """An argument passed as it is whose example is an object: its print is its type, while
    the analysis may read its attributes (their dtypes)."""
    import types

    def scaled(x, p):
        return x * p.w

    # (not a float32: per example a Python float times it is a float32, NEP 50, refused)
    for w in (2.5, np.int64(3), np.int32(3), 2.5):
        before = dict(memo.stats)
        assert_matches_loop(scaled, X, types.SimpleNamespace(w=w), excluded={1})
        assert delta(before).get("hits", 0) == 0


def test_python_numbers_and_numpy_scalars_are_separate_questions():
    def half(x, y):
        return x / y if y != 0 else x        # Python's `/` raises where NumPy's warns

    for y in (2.0, np.float64(2.0), 0.0, np.float64(0.0), 2.0):
        assert_matches_loop(half, X, y)


def test_a_name_imported_in_the_body_is_not_taken_from_the_globals(tmp_path):
    mod = load_module(tmp_path, """\
        import numpy as np

        floor = np.ceil


        def f(x):
            from math import floor
            return floor(x) * 2.0 if x > 0 else x
        """)
    xs = np.array([0.5, 1.5, -2.0, 2.7])
    for _ in range(2):
        assert_matches_loop(mod.f, xs)
    mod.floor = np.round
    assert_matches_loop(mod.f, xs)


def test_two_lambdas_on_one_line_are_two_functions(tmp_path):
    """Same name, file, first line and lines: told apart by their code (regression: the memo
    and the disk cache gave the first lambda's code for the second)."""
    mod = load_module(tmp_path, "scales = [lambda v: v * 0.5, lambda v: v * 4.0]\n")
    x = np.arange(3.0)
    for cache_dir in (False, tmp_path / "cache"):
        memo.clear()
        for scale, factor in zip(mod.scales, (0.5, 4.0)):
            got = vz(scale, fallback="error", cache_dir=cache_dir)(x)
            np.testing.assert_array_equal(got, x * factor)
        memo.clear()        # from the disk cache alone
        for scale, factor in zip(mod.scales, (0.5, 4.0)):
            got = vz(scale, fallback="error", cache_dir=cache_dir)(x)
            np.testing.assert_array_equal(got, x * factor)
