"""The disk cache of generated code (`vectorize.diskcache`, ``cache_dir=``).

A hit must give what a fresh transform gives (differential over the three corpora), run no
transform (in a fresh process: import no libcst), and be refused whenever anything it was made
from changed: the function's source, a helper's source, a global or closure value, the
package, NumPy or Python version, the arguments' abstract values, the user's rules. A corrupt,
foreign or too-open entry is regenerated and overwritten, never executed; concurrent writers
never leave a partial entry.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest
from array_corpus import CORPUS as ARRAY_CORPUS
from corpus import CORPUS
from differential import (
    assert_lanes_equal,
    assert_values_equal,
    loop_reference,
    numpy_vectorize_outcome,
)
from test_loops import CASES, HANGS, edge_inputs

import vectorize
from vectorize import diskcache, vmap
from vectorize import vectorize as vz
from vectorize.frontend import VectorizeFallbackWarning

ROOT = Path(__file__).resolve().parent.parent

SEED = """\
def func(t, b):
    tmp = t * b
    if tmp > 5:
        root = t * b
    else:
        root = -t
    return root
"""


@pytest.fixture
def cache(tmp_path):
    return tmp_path / "cache"


_loaded = [0]


def load_module(tmp_path, name: str, text: str):
    """``text`` as the module ``name`` (a new module object each time: a test edits a file and
    loads it again, as a new process would)."""
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(text))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def modname(request):
    """A module name of this test's own (modules stay in sys.modules)."""
    _loaded[0] += 1
    return f"vz_cache_{_loaded[0]}_{request.node.name.split('[')[0][5:30]}"


def counts():
    return dict(diskcache.stats)


def delta(before):
    return {k: v - before[k] for k, v in diskcache.stats.items() if v != before[k]}


def same(a, b):
    """Same outputs: tuple structure, dtypes, shapes, values (NaN equal to NaN, signed zeros
    and all: the bytes)."""
    if isinstance(a, tuple) or isinstance(b, tuple):
        assert isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            same(x, y)
        return
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes()


def entry_files(cache):
    return sorted(p for p in Path(cache).iterdir() if p.suffix == ".vzc")


# ---------------------------------------------------------------------- hits and misses
def test_a_hit_runs_no_transform_and_gives_the_same_code(tmp_path, cache, modname,
                                                         monkeypatch):
    mod = load_module(tmp_path, modname, SEED)
    x = np.linspace(0, 10, 11)
    before = counts()
    first = vz(mod.func, cache_dir=cache)
    out = first(x, 1.0)
    assert delta(before) == {"misses": 1, "writes": 1}
    assert [p.name for p in entry_files(cache)] and not [
        p for p in Path(cache).iterdir() if p.name.startswith(".tmp")]

    import vectorize.transform as transform

    def no_transform(*args, **kwargs):
        raise AssertionError("the engine ran on a cache hit")

    monkeypatch.setattr(transform, "transform_function", no_transform)
    before = counts()
    again = vz(mod.func, cache_dir=cache)
    same(again(x, 1.0), out)
    assert delta(before) == {"hits": 1}
    assert again.source(x, 1.0) == first.source(x, 1.0)
    same(out, loop_result(mod.func, x, 1.0))


def loop_result(f, *args):
    lanes, shape, raised = loop_reference(f, *args)
    assert not raised
    return np.array(lanes).reshape(shape)


def test_off_by_default_and_switches(tmp_path, cache, modname, monkeypatch):
    mod = load_module(tmp_path, modname, SEED)
    x = np.linspace(0, 10, 11)
    monkeypatch.delenv(diskcache.ENV, raising=False)
    before = counts()
    vz(mod.func)(x, 1.0)
    assert delta(before) == {}
    monkeypatch.setenv(diskcache.ENV, str(cache))
    vz(mod.func, cache_dir=False)(x, 1.0)           # False: off, whatever the environment
    vmap(mod.func, in_axes=(0, None), cache_dir=False)(x, 1.0)
    assert not cache.exists()
    vz(mod.func)(x, 1.0)                             # None: the environment's directory
    vmap(mod.func, in_axes=(0, None))(x, 1.0)
    assert len(entry_files(cache)) == 2
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    vz(mod.func, cache_dir=True)(x, 1.0)             # True: the default directory
    assert len(entry_files(tmp_path / "xdg" / "vectorize")) == 1
    with pytest.raises(TypeError, match="cache_dir"):
        vz(mod.func, cache_dir=3)
    with pytest.raises(TypeError, match="cache_dir"):
        vmap(mod.func, cache_dir=[cache])


def test_the_decorator_form_passes_cache_dir_on(tmp_path, cache, modname):
    mod = load_module(tmp_path, modname, SEED)
    f = vz(fallback="error", cache_dir=cache)(mod.func)
    f(np.arange(3.0), 1.0)
    assert len(entry_files(cache)) == 1
    g = vmap(in_axes=(0, None), cache_dir=cache)(mod.func)
    g(np.arange(3.0), 1.0)
    assert len(entry_files(cache)) == 2
    with pytest.raises(TypeError, match="cache_dir"):
        vmap(in_axes=0, cache_dir=1.5)


# ----------------------------------------------------------------------- differential
def _if_corpus_inputs(kinds):
    values = {"f": np.array([-3.0, -0.0, 0.0, 0.5, 2.0, 7.5, math.nan, math.inf, -math.inf]),
              "fm": np.array([-2.5, -0.5, 0.0, 0.5, 1.5, 3.0, 9.0, 1e9, -1e9]),
              "f32": np.array([-3.0, -0.0, 0.0, 0.5, 2.0, 7.5, math.nan, math.inf, 1e38],
                              dtype=np.float32),
              "i": np.array([-400, -15, -2, 0, 1, 3, 100, 1900, 2000]),
              "b": np.array([True, False, True, True, False, False, True, False, True])}
    return [3 if k == "n" else np.roll(values[k], i) for i, k in enumerate(kinds)]


def _cases():
    for f, kinds in CORPUS.items():
        args = _if_corpus_inputs(kinds)
        yield f"if:{f.__name__}", (lambda d, f=f: vz(f, fallback="error", cache_dir=d)), args
    for case in CASES:
        for variant in case.variants:
            if case.bug(variant) or (case.name, variant) in HANGS:
                continue
            f = case.func(variant)
            batched, unbatched = edge_inputs(case)
            if case.mode == "vmap":
                axes = (0,) * len(batched)
                make = (lambda d, f=f, axes=axes: vmap(f, in_axes=axes, cache_dir=d))
            else:
                n = len(batched)
                excluded = set(range(n, n + len(unbatched))) or None
                make = (lambda d, f=f, excluded=excluded:
                        vz(f, fallback="error", excluded=excluded, cache_dir=d))
            yield f"loop:{f.__name__}", make, [*batched, *unbatched]
    rng = np.random.default_rng(7)
    for f, spec in ARRAY_CORPUS.items():
        for in_axes in spec.in_axes:
            if in_axes in spec.bug:
                continue
            args = []
            for text, axis in zip(spec.args, in_axes):
                core, kind = text.split(":")
                shape = tuple(int(c) if c.isdigit() else 3 for c in core.split(",") if c)
                if axis is not None:
                    shape = (5,) + shape
                if kind.startswith("i"):
                    value = rng.integers(0, 3, shape)
                else:
                    value = rng.uniform(0.5 if kind == "p" else -2.0, 2.0, shape)
                args.append(value if shape else value[()])
            yield (f"array:{f.__name__}{in_axes}",
                   lambda d, f=f, in_axes=in_axes: vmap(f, in_axes=in_axes, cache_dir=d), args)


def _outcome(callable_, args):
    """(result, None), or (None, (exception type, message)) where the call raises."""
    try:
        return callable_(*args), None
    except Exception as exc:  # noqa: BLE001 -- compared between fresh and loaded
        return None, (type(exc), str(exc))


def test_cached_entries_give_what_a_fresh_transform_gives(tmp_path):
    """Every function of the three corpora: the specialization made, stored, and loaded by a
    new callable (a hit) computes exactly what a fresh transform computes, shows the same
    source, and (if corpus) what the per-example loop computes."""
    cache = tmp_path / "cache"
    hits = 0
    uncacheable, raised_ones = [], []
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for name, make, args in _cases():
            fresh, fresh_error = _outcome(make(False), args)
            before = counts()
            _outcome(make(cache), args)              # made and stored
            stored = delta(before)
            if "uncacheable" in stored:
                uncacheable.append((name, diskcache.last_reason[0]))
                continue
            before = counts()
            loaded = make(cache)
            got, error = _outcome(loaded, args)
            # (one entry per transform: two where float32 arrays compute in float64, one
            # for the code and one for the output types numpy.vectorize learns)
            assert stored.get("writes") in (1, 2), (name, stored)
            assert delta(before) == {"hits": stored["writes"]}, (name, delta(before),
                                                                 diskcache.last_reason)
            hits += 1
            assert loaded.source(*args) == make(False).source(*args), name
            # where an example raises (Python semantics: numpy.vectorize's exception), the
            # entry loaded raises exactly the fresh transform's
            assert error == fresh_error, (name, error, fresh_error)
            if error is not None:
                raised_ones.append(name)
                continue
            same(got, fresh)
            if name.startswith("if:"):
                f = loaded.__wrapped__
                lanes, shape, raised = loop_reference(f, *args)
                outs = got if isinstance(got, tuple) else (got,)
                try:
                    for k, out in enumerate(outs):
                        part = lanes if len(outs) == 1 else [
                            None if r is None else r[k] for r in lanes]
                        assert_lanes_equal(out, part, shape, raised, what=f"{name}: ")
                except AssertionError:
                    # where Python's numbers and NumPy's scalars differ (float32 arrays are
                    # Python floats per example), numpy.vectorize's are the contract
                    result, _ = numpy_vectorize_outcome(f, *args)
                    if result is None or raised:
                        raise
                    for out, r in zip(outs, result if isinstance(got, tuple) else (result,)):
                        assert_values_equal(out, r, what=f"{name}: ")
    assert not uncacheable, uncacheable
    assert hits > 200
    assert len(raised_ones) < hits // 10, raised_ones     # most cases compare values


# ------------------------------------------------------------------ fresh processes
PROBE = """\
import sys, json
import numpy as np
sys.path.insert(0, {folder!r})
import {module} as mod
import vectorize
from vectorize import diskcache
x = np.linspace(-3, 12, 41)
outs = [vectorize.vectorize(mod.func, cache_dir={cache!r})(x, 1.0),
        vectorize.vmap(mod.func, in_axes=(0, None), cache_dir={cache!r})(x, 2.0),
        vectorize.vectorize(mod.twenty, cache_dir={cache!r})(x, x[::-1])]
np.save({out!r}, np.stack(outs))
print(json.dumps({{"libcst": "libcst" in sys.modules, "stats": diskcache.stats}}))
"""

TWENTY = """
import math


def twenty(x, y):
    s = x * x + y * y
    if s > 4.0:
        r = math.sqrt(s)
        scale = 2.0 / r
    else:
        r = s
        scale = 1.0
    if x > 0:
        u = x * scale
    elif x < -1.0:
        u = -x * scale + 0.5
    else:
        u = 0.0
    if y > u:
        v = y - u
    else:
        v = u - y
    w = abs(v) + min(u, 3.0)
    if w > 10.0:
        return 10.0
    return w * r
"""


def run_python(code: str, **env) -> dict:
    environ = dict(os.environ, PYTHONPATH=str(ROOT), **env)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=environ, cwd=str(ROOT), timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_hit_in_a_fresh_process_imports_no_libcst(tmp_path, cache, modname):
    load_module(tmp_path, modname, SEED + TWENTY)
    probe = PROBE.format(folder=str(tmp_path), module=modname, cache=str(cache),
                         out=str(tmp_path / "first.npy"))
    first = run_python(probe)
    assert first["libcst"] and first["stats"]["writes"] == 3
    second = run_python(probe.replace("first.npy", "second.npy"))
    assert not second["libcst"]
    assert second["stats"]["hits"] == 3 and second["stats"]["writes"] == 0
    same(np.load(tmp_path / "second.npy"), np.load(tmp_path / "first.npy"))
    mod = sys.modules[modname]
    x = np.linspace(-3, 12, 41)
    same(np.load(tmp_path / "first.npy")[2], loop_result(mod.twenty, x, x[::-1]))


PIECEWISE = """\
import math


def piecewise(x):
    if x < -1.0:
        y = -x - 0.5
    elif x < 1.0:
        y = 0.5 * x * x
    elif x < 4.0:
        y = math.sqrt(x) - 0.5
    else:
        y = 0.25 * x * x - 1.5 * x + 3.5
    return y
"""

CHUNKED = """\
import sys, json
import numpy as np
sys.path.insert(0, {folder!r})
import {module} as mod
import vectorize
from vectorize import chunks, diskcache
chunks.EXPLORE_SHARE = 0.0   # both forms timed from the first call, whatever the load
x = np.random.default_rng(3).uniform(-6, 6, 40_000)
f = vectorize.vectorize(mod.piecewise, fallback="error", cache_dir={cache!r})
reference = vectorize.vectorize(mod.piecewise, fallback="error", chunk_size=None,
                                cache_dir={cache!r})(x)
small = [f(x[:n]) for n in (0, 1, 5)]
ok = all(np.array_equal(s, reference[:len(s)]) for s in small)
for _ in range(14):
    out = f(x)
    ok = ok and out.dtype == reference.dtype and np.array_equal(out, reference)
entry = next(iter(f._specs._entries.values()))
print(json.dumps({{"libcst": "libcst" in sys.modules, "stats": diskcache.stats, "ok": ok,
                  "compacted": bool(entry.tuning.compacted)}}))
"""


def test_the_compacted_form_comes_from_the_cache_too(tmp_path, cache, modname):
    """`chunk_size="auto"` builds the compacted form on the second call of a large batch
    (where exploring is not budgeted, `chunks.EXPLORE_SHARE`, as here): stored too, so a
    fresh process that times both forms still imports no libcst; every call gives the select
    form's results."""
    load_module(tmp_path, modname, PIECEWISE)
    probe = CHUNKED.format(folder=str(tmp_path), module=modname, cache=str(cache))
    env = {"VECTORIZE_NUM_THREADS": "2"}
    first = run_python(probe, **env)
    assert first["ok"] and first["compacted"], first
    assert first["stats"]["writes"] == 2          # the select form and the compacted one
    # without what the first process decided (which may be the select form: then a second
    # process never builds the compacted one), the second times both forms again
    for learned in Path(cache).glob("*.vzt"):
        learned.unlink()
    second = run_python(probe, **env)
    assert second["ok"] and second["compacted"] and not second["libcst"], second
    # the select form (for each callable) and the compacted one
    assert second["stats"]["hits"] == 3 and second["stats"]["writes"] == 0


# -------------------------------------------------------------------- key sensitivity
def test_an_edited_function_is_regenerated(tmp_path, cache, modname):
    x = np.linspace(0, 10, 11)
    mod = load_module(tmp_path, modname, SEED)
    vz(mod.func, cache_dir=cache)(x, 1.0)
    edits = [SEED.replace("root = -t", "root = -2 * t"),
             SEED.replace("    if tmp > 5:", "    # vectorize: compact\n    if tmp > 5:"),
             SEED.replace("def func(t, b):", "def func(t, b=2.0):")]
    for text in edits:
        mod = load_module(tmp_path, modname, text)
        before = counts()
        f = vz(mod.func, cache_dir=cache)
        same(f(x, 1.0), loop_result(mod.func, x, 1.0))
        assert delta(before) == {"rejected": 1, "writes": 1}, text
        assert "compact" not in text or "lanes" in f.source(x, 1.0)
        before = counts()
        same(vz(mod.func, cache_dir=cache)(x, 1.0), loop_result(mod.func, x, 1.0))
        assert delta(before) == {"hits": 1}
    assert len(entry_files(cache)) == 1          # the entry was overwritten each time


HELPERS = """\
import {other} as other

K = 2.0


def helper(v):
    if v > 1.0:
        return v * K
    return -v


def func(x):
    return helper(x) + other.offset(x)
"""

OTHER = """\
def offset(v):
    return v + 1.0
"""


@pytest.mark.parametrize("edited", ["helper", "other module"])
def test_an_edited_helper_is_regenerated(tmp_path, cache, modname, edited):
    """A helper read as a global is checked through that global's print; one reached as an
    attribute of a module (which is printed by its name only) through its own print."""
    x = np.linspace(-2, 3, 11)
    other = load_module(tmp_path, modname + "_other", OTHER)
    text = HELPERS.format(other=other.__name__)
    mod = load_module(tmp_path, modname, text)
    vz(mod.func, cache_dir=cache)(x)
    entry = json.loads(entry_files(cache)[0].read_bytes().partition(b"\n")[2])
    addresses = [address for address, _ in entry["functions"]]
    assert ["read", 0, "global", "helper"] in addresses
    assert ["module", other.__name__, "offset"] in addresses
    if edited == "helper":
        mod = load_module(tmp_path, modname, text.replace("return -v", "return -3 * v"))
    else:
        load_module(tmp_path, other.__name__, OTHER.replace("1.0", "10.0"))
        mod = load_module(tmp_path, modname, text)
    before = counts()
    same(vz(mod.func, cache_dir=cache)(x), loop_result(mod.func, x))
    assert delta(before) == {"rejected": 1, "writes": 1}
    before = counts()
    same(vz(mod.func, cache_dir=cache)(x), loop_result(mod.func, x))
    assert delta(before) == {"hits": 1}


def test_a_rebound_global_is_regenerated_and_guarded_after_a_load(tmp_path, cache, modname):
    x = np.linspace(-2, 3, 11)
    other = load_module(tmp_path, modname + "_other", OTHER)
    mod = load_module(tmp_path, modname, HELPERS.format(other=other.__name__))
    vz(mod.func, cache_dir=cache)(x)
    mod.K = 3.0                                   # another value: regenerated
    before = counts()
    f = vz(mod.func, cache_dir=cache)
    same(f(x), loop_result(mod.func, x))
    assert delta(before) == {"rejected": 1, "writes": 1}
    f = vz(mod.func, cache_dir=cache)              # loaded, with guards on the live globals
    before = counts()
    same(f(x), loop_result(mod.func, x))
    assert delta(before) == {"hits": 1}
    mod.K = 5.0                                   # rebound after the load: a new one
    same(f(x), loop_result(mod.func, x))
    mod.K = 3.0
    same(f(x), loop_result(mod.func, x))
    mod.K = 3                                     # equal, but an int: another print
    before = counts()
    same(vz(mod.func, cache_dir=cache)(x), loop_result(mod.func, x))
    assert delta(before) == {"rejected": 1, "writes": 1}


def test_a_rebound_attribute_is_regenerated_and_guarded_after_a_load(tmp_path, cache,
                                                                     modname):
    """`other.offset` and `other.SHIFT`, reached through an attribute of a module: a rebinding
    before a load rejects the entry, one after it makes a new specialization."""
    x = np.linspace(-2, 3, 11)
    other = load_module(tmp_path, modname + "_other", OTHER + "\n\nSHIFT = 1.5\n")
    text = HELPERS.format(other=other.__name__).replace(
        "return helper(x) + other.offset(x)", "return helper(x) + other.offset(x) * other.SHIFT")
    mod = load_module(tmp_path, modname, text)
    vz(mod.func, cache_dir=cache)(x)
    other.SHIFT = 2.5                             # another constant: regenerated
    before = counts()
    same(vz(mod.func, cache_dir=cache)(x), loop_result(mod.func, x))
    assert delta(before) == {"rejected": 1, "writes": 1}
    f = vz(mod.func, cache_dir=cache)             # loaded, with guards on the attributes
    before = counts()
    same(f(x), loop_result(mod.func, x))
    assert delta(before) == {"hits": 1}
    other.offset = lambda v: v - 100.0            # rebound after the load: a new one
    same(f(x), loop_result(mod.func, x))


def test_a_changed_closure_value_is_regenerated(tmp_path, cache, modname):
    mod = load_module(tmp_path, modname, """\
        def make(scale):
            def f(x):
                if x > 0:
                    return x * scale
                return x
            return f
        """)
    x = np.linspace(-2, 3, 11)
    vz(mod.make(2.0), cache_dir=cache)(x)
    before = counts()
    same(vz(mod.make(2.0), cache_dir=cache)(x), loop_result(mod.make(2.0), x))
    assert delta(before) == {"hits": 1}
    before = counts()
    same(vz(mod.make(4.0), cache_dir=cache)(x), loop_result(mod.make(4.0), x))
    assert delta(before) == {"rejected": 1, "writes": 1}


@pytest.mark.parametrize("change", ["vectorize", "engine file", "numpy", "python"])
def test_another_version_is_regenerated(tmp_path, cache, modname, monkeypatch, change):
    mod = load_module(tmp_path, modname, SEED)
    x = np.linspace(0, 10, 11)
    vz(mod.func, cache_dir=cache)(x, 1.0)
    monkeypatch.setattr(diskcache, "_engine_stamp", [])
    if change == "vectorize":
        monkeypatch.setattr(vectorize, "__version__", "999.0")
    elif change == "engine file":
        engine = diskcache.engine_stamp()
        monkeypatch.setattr(diskcache, "_engine_stamp", [[engine[0], "0" * 40]])
    elif change == "numpy":
        monkeypatch.setattr(np, "__version__", "0.0.1")
    else:
        monkeypatch.setattr(sys, "version", "2.7.18 (an old one)")
    before = counts()
    same(vz(mod.func, cache_dir=cache)(x, 1.0), loop_result(mod.func, x, 1.0))
    assert "hits" not in delta(before) and delta(before)["writes"] == 1


def test_the_stamp_sees_an_edited_engine_file(tmp_path, monkeypatch):
    monkeypatch.setattr(diskcache, "_engine_stamp", [])
    stamp = diskcache.engine_stamp()
    target = Path(diskcache.__file__).parent / "errors.py"
    st = target.stat()
    try:
        os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
        monkeypatch.setattr(diskcache, "_engine_stamp", [])
        assert diskcache.engine_stamp() != stamp
    finally:
        os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))


def test_other_abstract_arguments_are_another_entry(tmp_path, cache, modname):
    mod = load_module(tmp_path, modname, SEED)
    x = np.linspace(0, 10, 11)
    f = vz(mod.func, cache_dir=cache)
    f(x, 1.0)
    before = counts()
    same(vz(mod.func, cache_dir=cache)(x.astype(np.int64), np.int64(1)),
         loop_result(mod.func, x.astype(np.int64), np.int64(1)))
    assert delta(before) == {"misses": 1, "writes": 1}
    assert len(entry_files(cache)) == 2


RULED = """\
import sys, json
import numpy as np
sys.path.insert(0, {folder!r})
import {module} as mod
import vectorize
from vectorize import diskcache
if {register}:
    vectorize.register_rule(mod.scale, "{{v}} * 3.0")
x = np.linspace(-2, 3, 11)
out = vectorize.vectorize(mod.func, cache_dir={cache!r})(x)
print(json.dumps({{"stats": diskcache.stats, "out": out.tolist()}}))
"""


def test_a_registered_rule_is_part_of_the_key(tmp_path, cache, modname):
    """(In fresh processes: a registered rule stays in the registry of the process.)"""
    mod = load_module(tmp_path, modname, """\
        def scale(v):
            return v * 3.0


        def func(x):
            if x > 0:
                return scale(x)
            return x
        """)
    def probe(register: bool) -> str:
        return RULED.format(folder=str(tmp_path), module=modname, cache=str(cache),
                            register=register)

    x = np.linspace(-2, 3, 11)
    plain = run_python(probe(False))
    assert plain["stats"]["writes"] == 1
    ruled = run_python(probe(True))
    assert ruled["stats"]["rejected"] == 1 and ruled["stats"]["writes"] == 1
    again = run_python(probe(True))
    assert again["stats"]["hits"] == 1
    back = run_python(probe(False))
    assert back["stats"]["rejected"] == 1
    for run in (plain, ruled, again, back):
        same(np.array(run["out"]), loop_result(mod.func, x))


def test_what_has_no_print_is_not_stored(tmp_path, cache, modname):
    mod = load_module(tmp_path, modname, """\
        import types

        CONFIG = types.SimpleNamespace(scale=2.0)


        def func(x):
            return x * CONFIG.scale
        """)
    x = np.linspace(-2, 3, 11)
    before = counts()
    same(vz(mod.func, cache_dir=cache)(x), loop_result(mod.func, x))
    assert delta(before) == {"misses": 1, "uncacheable": 1}
    assert "SimpleNamespace" in diskcache.last_reason[0]
    assert not cache.exists() or not entry_files(cache)


def test_a_per_example_fallback_still_warns_on_a_hit(tmp_path, cache, modname):
    mod = load_module(tmp_path, modname, """\
        import math


        def func(x):
            if x > 0:
                return float(math.ulp(x))
            return x
        """)
    x = np.array([-1.0, 0.0, 2.0, 4.0])
    with pytest.warns(VectorizeFallbackWarning):
        first = vz(mod.func, cache_dir=cache)(x)
    before = counts()
    with pytest.warns(VectorizeFallbackWarning, match="ulp"):
        again = vz(mod.func, cache_dir=cache)(x)
    assert delta(before) == {"hits": 1}
    same(again, first)
    same(again, loop_result(mod.func, x))


# ------------------------------------------------------------ corrupt and foreign entries
def _rewrite(path: Path, payload=None, head=None, body=None):
    """An entry with the checksum made right for a new payload (or a given header)."""
    if body is None:
        body = json.dumps(payload).encode()
    if head is None:
        head = b"vectorize-cache %d %s" % (diskcache.FORMAT, diskcache._digest(body).encode())
    path.write_bytes(head + b"\n" + body)


def _payload(path: Path) -> dict:
    return json.loads(path.read_bytes().partition(b"\n")[2])


MARKER_SOURCE = "import pathlib\npathlib.Path({marker!r}).write_text('ran')\n"

CORRUPTIONS = {
    "truncated": lambda p, m: p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2]),
    "empty": lambda p, m: p.write_bytes(b""),
    "garbage": lambda p, m: p.write_bytes(os.urandom(300)),
    "wrong format": lambda p, m: _rewrite(p, _payload(p), head=b"vectorize-cache 999 "
                                          + diskcache._digest(p.read_bytes().partition(
                                              b"\n")[2]).encode()),
    # the code replaced, the rest (and the header) as it was: only the checksum tells
    "wrong checksum": lambda p, m: _rewrite(p, {
        **_payload(p), "source": MARKER_SOURCE.format(marker=str(m))},
        head=p.read_bytes().partition(b"\n")[0]),
    "not json": lambda p, m: _rewrite(p, body=b"{not json"),
    "a list": lambda p, m: _rewrite(p, [1, 2]),
    "missing keys": lambda p, m: _rewrite(p, {"lookup": _payload(p)["lookup"]}),
    "bad result": lambda p, m: _rewrite(p, {**_payload(p), "result": ["value", True, False,
                                                                       ["ndarray", "<f8",
                                                                        [2], "zz"]]}),
    "code that does not compile": lambda p, m: _rewrite(p, {**_payload(p), "source": "def (:"}),
    # a valid entry for something else, whose code would leave a mark if it ran
    "made for another header": lambda p, m: _rewrite(p, {
        **_payload(p), "source": MARKER_SOURCE.format(marker=str(m)),
        "lookup": {**_payload(p)["lookup"], "header": "something else"}}),
    "made for another engine": lambda p, m: _rewrite(p, {
        **_payload(p), "source": MARKER_SOURCE.format(marker=str(m)),
        "lookup": {**_payload(p)["lookup"], "engine": ["0.0.0", "0" * 40]}}),
    "a helper that does not exist": lambda p, m: _rewrite(p, {
        **_payload(p), "source": MARKER_SOURCE.format(marker=str(m)),
        "functions": _payload(p)["functions"] + [[["read", 0, "global", "nothing"], []]]}),
    "a read that does not match": lambda p, m: _rewrite(p, {
        **_payload(p), "source": MARKER_SOURCE.format(marker=str(m)),
        "reads": [[0, "global", "np", ["module", "os"]]]}),
}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_in_place_of_an_entry_is_regenerated_without_blocking(tmp_path, cache,
                                                                       modname):
    """Opening a FIFO for reading waits for a writer: the entry's file must be opened
    without waiting, then refused as not a regular file."""
    import threading
    mod = load_module(tmp_path, modname, SEED)
    x = np.linspace(-2, 10, 13)
    vz(mod.func, cache_dir=cache)(x, 1.0)
    (path,) = entry_files(cache)
    path.unlink()
    os.mkfifo(path, 0o600)
    results = []
    before = counts()
    call = threading.Thread(target=lambda: results.append(vz(mod.func, cache_dir=cache)(x, 1.0)),
                            daemon=True)
    call.start()
    call.join(60)
    if call.is_alive():     # blocked in open(): let it go, then fail
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("reading the cache blocked on a FIFO")
    same(results[0], loop_result(mod.func, x, 1.0))
    assert delta(before) == {"rejected": 1, "writes": 1}
    assert "regular" in diskcache.last_reason[0]


@pytest.mark.parametrize("corruption", list(CORRUPTIONS))
def test_a_corrupt_entry_is_regenerated_never_executed(tmp_path, cache, modname, corruption):
    mod = load_module(tmp_path, modname, "import numpy as np\n\n\n" + SEED.replace(
        "root = -t", "root = -np.abs(t)"))
    x = np.linspace(-2, 10, 13)
    vz(mod.func, cache_dir=cache)(x, 1.0)
    (path,) = entry_files(cache)
    marker = tmp_path / "ran"
    CORRUPTIONS[corruption](path, marker)
    before = counts()
    same(vz(mod.func, cache_dir=cache)(x, 1.0), loop_result(mod.func, x, 1.0))
    assert delta(before) == {"rejected": 1, "writes": 1}, diskcache.last_reason
    assert not marker.exists()
    before = counts()                             # overwritten with a good entry
    same(vz(mod.func, cache_dir=cache)(x, 1.0), loop_result(mod.func, x, 1.0))
    assert delta(before) == {"hits": 1}


def test_an_entry_others_may_write_is_regenerated(tmp_path, cache, modname):
    mod = load_module(tmp_path, modname, SEED)
    x = np.linspace(0, 10, 11)
    vz(mod.func, cache_dir=cache)(x, 1.0)
    (path,) = entry_files(cache)
    assert path.stat().st_mode & 0o777 == 0o600
    path.chmod(0o666)
    before = counts()
    vz(mod.func, cache_dir=cache)(x, 1.0)
    assert delta(before) == {"rejected": 1, "writes": 1}
    assert "writable by other users" in diskcache.last_reason[0]
    assert path.stat().st_mode & 0o777 == 0o600


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0,
                    reason="giving a file to another user needs root")
def test_an_entry_of_another_user_is_regenerated(tmp_path, cache, modname):
    mod = load_module(tmp_path, modname, SEED)
    x = np.linspace(0, 10, 11)
    vz(mod.func, cache_dir=cache)(x, 1.0)
    (path,) = entry_files(cache)
    os.chown(path, 4242, -1)
    before = counts()
    vz(mod.func, cache_dir=cache)(x, 1.0)
    assert delta(before) == {"rejected": 1, "writes": 1}
    assert "another user" in diskcache.last_reason[0]
    assert path.stat().st_uid == os.getuid()


def test_a_symbolic_link_is_not_followed(tmp_path, cache, modname):
    mod = load_module(tmp_path, modname, SEED)
    x = np.linspace(0, 10, 11)
    vz(mod.func, cache_dir=cache)(x, 1.0)
    (path,) = entry_files(cache)
    elsewhere = tmp_path / "elsewhere.vzc"
    path.rename(elsewhere)
    path.symlink_to(elsewhere)
    before = counts()
    vz(mod.func, cache_dir=cache)(x, 1.0)
    assert delta(before) == {"rejected": 1, "writes": 1}
    assert not path.is_symlink()


def test_the_directory_is_made_for_this_user_only(tmp_path, modname):
    mod = load_module(tmp_path, modname, SEED)
    cache = tmp_path / "a" / "b" / "cache"
    old = os.umask(0)
    try:
        vz(mod.func, cache_dir=cache)(np.arange(3.0), 1.0)
    finally:
        os.umask(old)
    assert cache.stat().st_mode & 0o777 == 0o700
    assert all(p.stat().st_mode & 0o777 == 0o600 for p in entry_files(cache))


@pytest.mark.parametrize("problem", ["others may write", "another user"])
def test_a_directory_others_may_write_is_not_used(tmp_path, cache, modname, problem,
                                                  monkeypatch):
    mod = load_module(tmp_path, modname, SEED)
    x = np.linspace(0, 10, 11)
    cache.mkdir()
    if problem == "others may write":
        cache.chmod(0o777)
    else:
        uid = os.getuid()
        monkeypatch.setattr(diskcache.os, "getuid", lambda: uid + 1)
    monkeypatch.setattr(diskcache, "_warned", set())
    before = counts()
    with pytest.warns(RuntimeWarning, match="not used"):
        same(vz(mod.func, cache_dir=cache)(x, 1.0), loop_result(mod.func, x, 1.0))
    vz(mod.func, cache_dir=cache)(x, 1.0)
    assert "writes" not in delta(before) and "hits" not in delta(before)
    assert list(cache.iterdir()) == []


def test_a_file_in_place_of_the_directory_is_said_and_not_used(tmp_path, modname,
                                                                monkeypatch):
    mod = load_module(tmp_path, modname, SEED)
    cache = tmp_path / "cache"
    cache.write_text("not a directory")
    monkeypatch.setattr(diskcache, "_warned", set())
    x = np.linspace(0, 10, 11)
    with pytest.warns(RuntimeWarning, match="is not a directory"):
        same(vz(mod.func, cache_dir=cache)(x, 1.0), loop_result(mod.func, x, 1.0))
    assert cache.read_text() == "not a directory"


# ------------------------------------------------------------------------ concurrency
WRITER = """\
import sys, json
import numpy as np
sys.path.insert(0, {folder!r})
import {module} as mod
from vectorize import diskcache, frontend
from vectorize.abstract import Value
params = {{"t": Value(True, np.float64(1.0)), "b": Value(False, np.float64(1.0))}}
store = diskcache.store({cache!r})
key = store.lookup(mod.func, params, fallback="error", header="h", if_strategy=None,
                   backend="numpy")
spec = frontend.specialize(mod.func, params, header="h")
x = np.linspace(0, 10, 11)
loaded = 0
for _ in range(150):
    assert store.save(spec, key)
    got = store.load(mod.func, key)
    if got is not None:
        loaded += 1
        assert np.array_equal(got.function(x, 1.0), spec.function(x, 1.0))
print(json.dumps({{"loaded": loaded, "stats": diskcache.stats}}))
"""


def test_concurrent_writers_never_leave_a_partial_entry(tmp_path, cache, modname):
    load_module(tmp_path, modname, SEED)
    code = WRITER.format(folder=str(tmp_path), module=modname, cache=str(cache))
    environ = dict(os.environ, PYTHONPATH=str(ROOT))
    procs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=environ)
             for _ in range(2)]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    for result in results:
        assert result["loaded"] == 150 and result["stats"]["rejected"] == 0, result
    assert [p.name for p in cache.iterdir() if p.suffix != ".vzc"] == []
    assert len(entry_files(cache)) == 1



# ------------------------------------------------------------ what the runtime learned
TUNE_PROBE = """\
import sys, json
import numpy as np
sys.path.insert(0, {folder!r})
import {module} as mod
import vectorize
from vectorize import chunks, diskcache
n = 1 << 17                 # chunks on one thread are a way to time (`chunks.lanes_per_chunk`)
x = np.linspace(-3, 12, n)
f = vectorize.vectorize(mod.func, cache_dir={cache!r})
got = f(x, 1.0)
(entry,) = f._specs._entries.values()
bucket = n.bit_length()
first = entry.tuning.chunking.get(bucket)
timed = bucket in entry.tuning.timed        # (the first calls of a class are whole calls)
calls = 1
while not chunks.settled(entry.tuning, n) and calls < 1000:
    got = f(x, 1.0)
    calls += 1
assert np.array_equal(got, np.vectorize(mod.func)(x, 1.0))
print(json.dumps({{"first": first if type(first) is int else repr(type(first)),
                   "timed": timed, "decided": entry.tuning.chunking.get(bucket),
                   "calls": calls, "stats": diskcache.stats}}))
"""


def test_a_later_process_starts_tuned(tmp_path, cache, modname):
    """The ways `chunks.run` decided (one call or chunks, on how many threads) are kept beside
    the entry: a second process runs its first call the decided way without timing the
    others; an entry rewritten for an edited function leaves them unused."""
    # (straight-line code: no compacted form that a second process, which builds faster
    # from the disk, would explore before the first did)
    text = "def func(t, b):\n    return (t * b - t) * 0.5\n"
    load_module(tmp_path, modname, text)
    probe = TUNE_PROBE.format(folder=str(tmp_path), module=modname, cache=str(cache))
    first = run_python(probe)
    # it timed the ways, once its calls had paid for it (`chunks.EXPLORE_SHARE`)
    assert type(first["decided"]) is int and first["calls"] > 1 and not first["timed"]
    assert len([p for p in Path(cache).iterdir() if p.suffix == ".vzt"]) == 1
    second = run_python(probe)
    assert second["stats"]["hits"] >= 1
    assert second["first"] == first["decided"] and second["timed"] and second["calls"] == 1
    (tmp_path / f"{modname}.py").write_text(text.replace("0.5", "0.25"))
    third = run_python(probe)
    assert not third["timed"] and third["calls"] > 1   # learned afresh


def test_malformed_tuning_is_ignored(tmp_path):
    """`chunks.restore` keeps only well-formed decisions."""
    from vectorize import chunks
    tuning = chunks.Tuning()
    chunks.restore(tuning, {"chunking": {"17": 1, "x": 2, "18": "2", "19": -1, "20": 99},
                            "compacted": "no", "compared": [17]})
    assert tuning.chunking == {17: 1} and not tuning.variants
    chunks.restore(tuning, None)
    chunks.restore(tuning, ["chunking"])
    assert tuning.chunking == {17: 1}


def test_restored_ways_not_yet_timed_are_timed_later():
    """What a process decided before timing the ways (the forms only, `chunks.learned`'s
    ``timed`` without that class) is restored with the ways still to time; what an earlier
    version kept (no ``timed``) counts as timed."""
    from vectorize import chunks
    tuning = chunks.Tuning()
    chunks.restore(tuning, {"chunking": {"17": 0, "18": 1}, "compacted": [],
                            "compared": [17], "timed": [18]})
    assert tuning.chunking == {17: 0, 18: 1}
    assert tuning.timed == {18} and set(tuning.untimed) == {17}
    assert chunks.learned(tuning)["chunking"] == {"17": 0, "18": 1}
    old = chunks.Tuning()
    chunks.restore(old, {"chunking": {"17": 0}, "compacted": [], "compared": []})
    assert old.timed == {17} and not old.untimed
