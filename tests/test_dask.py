"""Dask arrays through vectorized functions (`vectorize.dask_runtime`, `vectorize.pickling`).

A vectorized callable (`vectorize`, `vmap`, the functions ``python -m vectorize`` writes)
called with Dask arrays returns Dask arrays, computes nothing until asked, and gives what the
eager NumPy call gives on the same data, values and dtypes: hypothesis draws the chunks
(chunks of 1, uneven chunks, empty arrays) for per-example ``if``s, ``while`` loops,
signature functions and vmap's axes. Shared arguments are one node of the graph, not one
copy per task. The callables pickle (cloudpickle) to processes that have no copy of the
source file, and run on the threaded scheduler and on a ``LocalCluster`` of two worker
processes on loopback; ``xarray.apply_ufunc`` takes them (the recipe of docs/dask.md).
"""

from __future__ import annotations

import importlib.util
import os
import pickle
import subprocess
import sys
import textwrap
import warnings

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

da = pytest.importorskip("dask.array")
import dask  # noqa: E402 -- after the check that Dask is installed

from vectorize import chunks, explain, vectorize, vmap  # noqa: E402
from vectorize.dask_runtime import map_vectorized, map_vmapped  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SETTINGS = settings(max_examples=25, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


# ------------------------------------------------------------------ per-example functions
def seed(t, b):
    tmp = t * b
    if tmp > 5:
        root = t * b
    else:
        root = -t
    return root


def halvings(n):
    k = 0
    while n > 1:
        n = n // 2
        k += 1
    return k


def piecewise(x):
    if x < 0:
        return 0.0
    if x < 1:
        return x * x
    return 2 * x - 1


def two_outputs(x, y):
    if x > y:
        return x - y, 1
    return y - x, 0


def rms(v):
    return np.sqrt(np.mean(v * v))


def cosine(u, v):
    norms = np.linalg.norm(u) * np.linalg.norm(v)
    if norms == 0:
        return 0.0
    return u.dot(v) / norms


def stats(v):
    return np.array([v.sum(), v.max(), v.min()])


def power(x, k):
    return x ** k


def score(x, w):
    s = x.dot(w)
    if s > 0:
        return s, x.max()
    return 0.0, x.min()


def project(v, w):
    return v.dot(w)


def scale_rows(x):
    return x * 2.0 - x.mean()


def pair(p, c):
    a, b = p
    return a * c + b


# ------------------------------------------------------------------------------ strategies
@st.composite
def chunkings(draw, n):
    """Chunks of ``n`` examples: one chunk, all of 1, or uneven sizes drawn."""
    kind = draw(st.sampled_from(["one", "ones", "uneven"]))
    if n == 0 or kind == "one":
        return (n,)
    if kind == "ones":
        return (1,) * n
    sizes, left = [], n
    while left:
        size = draw(st.integers(1, left))
        sizes.append(size)
        left -= size
    return tuple(sizes)


floats = st.floats(-20, 20) | st.sampled_from([np.nan, np.inf, -np.inf, -0.0, 0.0])


@st.composite
def batches(draw, max_n=24, elements=floats, dtype=np.float64):
    n = draw(st.sampled_from([0, 1, 5]) | st.integers(0, max_n))
    values = np.array(draw(st.lists(elements, min_size=n, max_size=n)), dtype=dtype)
    return values, draw(chunkings(n))


def assert_same(lazy, eager, contraction=False):
    """A Dask result equals the eager one: same type of container, dtypes, shapes, values
    (NaNs and signed zeros included). ``contraction``: a product of per-example arrays with
    a shared one (`x @ w`, BLAS), whose summation order may differ between two batch sizes
    (docs/dask.md): equal to an ulp or two."""
    if isinstance(eager, tuple):
        assert isinstance(lazy, tuple) and len(lazy) == len(eager)
        for a, b in zip(lazy, eager):
            assert_same(a, b, contraction)
        return
    assert isinstance(lazy, da.Array), type(lazy)
    assert lazy.dtype == eager.dtype and lazy.shape == eager.shape
    got = lazy.compute(scheduler="sync")
    assert got.dtype == eager.dtype and got.shape == eager.shape
    if contraction:
        np.testing.assert_allclose(got, eager, rtol=1e-14, atol=1e-14, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, eager)
    assert np.array_equal(np.signbit(got), np.signbit(eager)) if got.dtype.kind == "f" else True


# ------------------------------------------------------------------- laziness and imports
def test_import_and_numpy_calls_do_not_import_dask(tmp_path):
    program = tmp_path / "numpy_only.py"
    program.write_text("import sys\nimport numpy as np\nimport vectorize\n"
                       "from vectorize import vectorize as vz, vmap\n"
                       "def f(x):\n    return x * 2 if x > 0 else -x\n"
                       "vz(f)(np.arange(-3.0, 3.0)); vmap(f)(np.arange(-3.0, 3.0))\n"
                       "bad = [m for m in sys.modules if m.split('.')[0] in "
                       "('dask', 'distributed', 'xarray', 'cloudpickle')]\n"
                       "assert not bad, bad\n")
    subprocess.run([sys.executable, str(program)], check=True, timeout=120,
                   env={**os.environ, "PYTHONPATH": ROOT})


def test_nothing_is_computed_until_asked():
    computed = []

    def load(i):
        computed.append(i)
        return np.arange(4.0) + 4 * i
    blocks = [da.from_delayed(dask.delayed(load)(i), (4,), np.float64) for i in range(3)]
    x = da.concatenate(blocks)
    f = vectorize(seed)
    out = f(x, 1.5)
    halves = vmap(halvings)(x.astype(np.int64))
    assert isinstance(out, da.Array) and out.shape == (12,) and out.dtype == np.float64
    assert halves.dtype == np.int64
    assert f.source(x, 1.5) == f.source(np.zeros(4), 1.5)      # what each block runs
    assert explain(f, x, 1.5) == explain(f, np.zeros(4), 1.5)
    assert computed == []
    np.testing.assert_array_equal(out.compute(scheduler="sync"), f(np.arange(12.0), 1.5))
    assert sorted(computed) == [0, 1, 2]


# ------------------------------------------------------------- numpy.vectorize semantics
@SETTINGS
@given(batches(), st.sampled_from([1.5, -2.0, 0.0]))
def test_if_over_chunkings(batch, b):
    values, chunking = batch
    f = vectorize(seed, fallback="error")
    assert_same(f(da.from_array(values, chunks=(chunking,)), b), f(values, b))
    assert_same(f(values, da.from_array(np.float64(b))), f(values, b))


@SETTINGS
@given(batches(elements=st.integers(-50, 10 ** 6), dtype=np.int64))
def test_while_over_chunkings(batch):
    values, chunking = batch
    f = vectorize(halvings, fallback="error")
    assert_same(f(da.from_array(values, chunks=(chunking,))), f(values))
    if values.size:
        np.testing.assert_array_equal(f(values), np.vectorize(halvings)(values))


@SETTINGS
@given(batches(), batches())
def test_early_returns_and_tuples_over_chunkings(xs, ys):
    (x, x_chunks), (y, _) = xs, ys
    y = np.resize(y, x.shape) if y.size else np.zeros_like(x)
    f, g = vectorize(piecewise, fallback="error"), vectorize(two_outputs, fallback="error")
    dx = da.from_array(x, chunks=(x_chunks,))
    assert_same(f(dx), f(x))
    assert_same(g(dx, y), g(x, y))           # a NumPy argument chunked along the Dask one
    if x.size:
        with np.errstate(invalid="ignore"):     # numpy's loop warns on NaN outputs
            np.testing.assert_array_equal(f(x), np.vectorize(piecewise)(x))


@st.composite
def matrices(draw):
    rows = draw(st.sampled_from([0, 1, 4]) | st.integers(0, 9))
    cols = draw(st.integers(1, 5))
    values = np.array(draw(st.lists(st.floats(-5, 5), min_size=rows * cols,
                                    max_size=rows * cols))).reshape(rows, cols)
    return values, (draw(chunkings(rows)), draw(chunkings(cols)))


@SETTINGS
@given(matrices())
def test_signatures_over_chunkings(matrix):
    """The core dimension may come in several chunks: it is put into one."""
    m, chunking = matrix
    dm = da.from_array(m, chunks=chunking)
    for f, args in [(vectorize(rms, signature="(n)->()"), (m,)),
                    (vectorize(cosine, signature="(n),(n)->()"), (m, m[::-1] + 1)),
                    (vectorize(stats, signature="(n)->(k)"), (m,))]:
        if f.signature == "(n)->(k)" and not m.size:
            continue    # numpy.vectorize's own error for a new dimension of an empty loop
        lazy = f(dm, *args[1:])
        assert_same(lazy, f(*args))
    reference = np.ones(m.shape[1])
    f = vectorize(cosine, signature="(n),(n)->()")
    # an unbatched core argument: the product is one `@` of the batch (BLAS)
    assert_same(f(dm, reference), f(m, reference), contraction=True)


@SETTINGS
@given(matrices(), st.sampled_from([np.float32, np.int32, np.float64]))
def test_two_loop_dimensions_over_chunkings(matrix, dtype):
    """Loop dimensions chunked both ways, broadcast against a NumPy row and a Dask column."""
    m, chunking = matrix
    m = m.astype(dtype)
    f = vectorize(seed, fallback="error")
    row = np.linspace(-1, 2, m.shape[1]).astype(dtype)
    assert_same(f(da.from_array(m, chunks=chunking), row), f(m, row))
    column = da.from_array(m[:, :1], chunks=(chunking[0], 1))
    assert_same(f(row, column), f(row, m[:, :1]))


def test_broadcasting_keywords_and_excluded():
    f = vectorize(seed)
    x, y = np.arange(6.0).reshape(3, 2, 1), np.arange(4.0) - 1
    assert_same(f(da.from_array(x, chunks=(2, 1, 1)), y), f(x, y))
    assert_same(f(x, da.from_array(y, chunks=3)), f(x, y))
    assert_same(f(t=da.from_array(y, chunks=3), b=2.0), f(t=y, b=2.0))
    with pytest.raises(ValueError, match="broadcast"):
        f(da.ones(3, chunks=2), np.ones(4))
    p = vectorize(power, excluded={"k"})
    assert_same(p(da.from_array(y, chunks=1), k=3), p(y, k=3))
    k = da.from_array(np.array([2, 3]), chunks=1)[1]       # a Dask array passed whole
    assert_same(p(da.from_array(y, chunks=1), k=k), p(y, k=np.int64(3)))
    for other in (dask.delayed(np.ones(3)), dask.delayed(3)):
        with pytest.raises(TypeError, match="Dask arrays"):
            f(other, 1.0)
        with pytest.raises(TypeError, match="Dask arrays"):
            p(da.ones(3, chunks=2), k=other)
    s = vectorize(rms, signature="(n)->()")
    assert_same(s(da.ones(3, chunks=2)), s(np.ones(3)))      # no loop dimension: 0-d
    with pytest.raises(ValueError, match="core dimension"):
        s(da.from_array(np.float64(2.0)))


def test_otypes_and_functions_that_run_per_example():
    def star(x):
        return float(len(repr(x))) * 2      # (a repr per example: numpy.vectorize's loop)
    x = np.arange(5.0)
    dx = da.from_array(x, chunks=2)
    loop = vectorize(star, fallback="loop")
    # numpy.vectorize's loop cannot tell the dtype of an empty batch: nor can the Dask
    # array be declared without computing
    with pytest.raises(ValueError, match="otypes"):
        loop(dx)
    typed = vectorize(star, fallback="loop", otypes=[np.float32])
    assert_same(typed(dx), typed(x))
    f = vectorize(seed, otypes="f")
    assert_same(f(dx, 2.0), f(x, 2.0))
    assert f(dx, 2.0).dtype == np.float32


def test_shared_arguments_are_one_node_of_the_graph():
    """An excluded or unmapped array is not copied into every task."""
    w = np.random.default_rng(1).random((64, 2048))          # 1 MiB
    x = da.random.default_rng(2).random((400, 64), chunks=(20, 64))     # 20 chunks
    for out in (vmap(np.dot, in_axes=(0, None))(x, w),
                vectorize(project, excluded={1}, signature="(n)->(m)")(x, w)):
        sizes = sorted(len(pickle.dumps(task, protocol=5)) if _picklable(task) else 0
                       for task in dict(out.__dask_graph__()).values())
        assert sum(s >= w.nbytes for s in sizes) == 1, sizes[-3:]
        assert sum(sizes) < w.nbytes + 200_000
        np.testing.assert_allclose(out.compute(scheduler="sync"), x.compute() @ w)


def _picklable(task):
    import cloudpickle
    try:
        cloudpickle.dumps(task)
    except Exception:   # noqa: BLE001 -- counted as small
        return False
    return True


def test_chunks_of_a_task_run_on_its_thread():
    seen = []

    def probe(*xs):
        seen.append(chunks.num_threads())
        return xs[0]
    f = vectorize(probe, fallback="loop", otypes=[float])
    f(da.ones(6, chunks=2)).compute(scheduler="threads")
    assert seen and set(seen) == {1}


# ---------------------------------------------------------------------------------- vmap
@SETTINGS
@given(matrices(), st.sampled_from([0, 1]))
def test_vmap_over_chunkings(matrix, out_axis):
    m, chunking = matrix
    w = np.linspace(-1, 1, m.shape[1])
    v = vmap(score, in_axes=(0, None))
    assert_same(v(da.from_array(m, chunks=chunking), w), v(m, w), contraction=True)
    t = vmap(score, in_axes=(1, None))
    assert_same(t(da.from_array(m.T, chunks=chunking[::-1]), w), t(m.T, w), contraction=True)
    s = vmap(scale_rows, in_axes=0, out_axes=out_axis)
    assert_same(s(da.from_array(m, chunks=chunking)), s(m))


def test_vmap_tuples_mixed_arguments_and_errors():
    p = vmap(pair, in_axes=((0, 1), None))
    a, b = np.arange(6.0), np.arange(12.0).reshape(2, 6)
    assert_same(p((da.from_array(a, chunks=4), b), 3.0), p((a, b), 3.0))
    with pytest.raises(ValueError, match="inconsistent sizes"):
        vmap(seed)(da.ones(3, chunks=2), da.ones(4, chunks=2))
    with pytest.raises(ValueError, match="out_axes=None"):
        vmap(seed, in_axes=(0, None), out_axes=None)(da.ones(3, chunks=2), 1.0)


# ---------------------------------------------------------------- the rewritten file's way
MARKED = '''
import numpy as np
from vectorize import vectorize, vmap


@vectorize
def seed(t, b):
    if t * b > 5:
        return t * b
    return -t


@vectorize(signature="(n)->()")
def rms(v):
    return np.sqrt(np.mean(v * v))


@vmap(in_axes=(1, None))
def score(x: "float[:]", w: "float[:]"):
    s = x.dot(w)
    if s > 0:
        return s, x.max()
    return 0.0, x.min()
'''


@pytest.fixture(scope="module")
def rewritten(tmp_path_factory):
    """The module ``python -m vectorize -w`` makes of `MARKED` (plain NumPy functions)."""
    from vectorize.cli import main
    path = tmp_path_factory.mktemp("rewritten") / "model.py"
    path.write_text(MARKED)
    assert main([str(path), "-w", "-q"]) == 0
    assert "vectorize" not in path.read_text()
    spec = importlib.util.spec_from_file_location("rewritten_model", path)
    model = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(model)
    return model


def rewritten_calls(model):
    """(lazy, eager) results of the rewritten functions on Dask and NumPy arrays."""
    x = np.linspace(-3, 9, 17)
    m = np.arange(15.0).reshape(5, 3) - 4
    w = np.array([1.0, -2.0, 0.5])
    lazy = [map_vectorized(model.seed, da.from_array(x, chunks=5), 1.5),
            map_vectorized(model.rms, da.from_array(m, chunks=(2, 1)), signature="(n)->()"),
            *map_vmapped(model.score, da.from_array(m.T, chunks=(3, 2)), w, in_axes=(1, None))]
    eager = [vectorize(seed)(x, 1.5), vectorize(rms, signature="(n)->()")(m),
             *vmap(score, in_axes=(1, None))(m.T, w)]
    return lazy, eager


def test_functions_of_a_rewritten_file(rewritten):
    for lazy, eager in zip(*rewritten_calls(rewritten)):
        assert_same(lazy, eager)


# ------------------------------------------------------------------------------- pickling
def test_pickles_by_reference_where_its_module_has_it(tmp_path, monkeypatch):
    (tmp_path / "marked_module.py").write_text(
        "from vectorize import vectorize, vmap\n\n\n@vectorize\ndef f(x):\n"
        "    return x + 1 if x > 0 else x\n\n\n@vmap\ndef g(x):\n    return x * 2\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import marked_module
    for obj in (marked_module.f, marked_module.g):
        data = pickle.dumps(obj)
        assert b"marked_module" in data and len(data) < 200
        assert pickle.loads(data) is obj
    sys.modules.pop("marked_module", None)


def test_pickles_by_value_to_a_process_without_the_source(tmp_path):
    """The loading process has no copy of the file (a worker on another machine): the
    engine reads the lines sent along, and translates (``fallback="error"``)."""
    module = tmp_path / "local_model.py"
    module.write_text(textwrap.dedent('''
        import numpy as np
        from vectorize import vectorize, vmap


        def helper(t):
            return t * t


        def make():
            def f(t, b):
                if t * b > 5:
                    return helper(t)
                return -t

            def g(x):
                return helper(x).sum()
            return vectorize(f, fallback="error"), vmap(g, fallback="error")
        '''))
    program = textwrap.dedent(f'''
        import sys, cloudpickle
        sys.path.insert(0, {str(tmp_path)!r})
        import local_model
        cloudpickle.register_pickle_by_value(local_model)
        sys.stdout.buffer.write(cloudpickle.dumps(local_model.make()))
        ''')
    env = {**os.environ, "PYTHONPATH": ROOT}
    data = subprocess.run([sys.executable, "-c", program], check=True, capture_output=True,
                          timeout=120, env=env).stdout
    module.unlink()
    load = textwrap.dedent('''
        import sys, pickle, warnings
        import numpy as np
        warnings.simplefilter("error")
        f, g = pickle.loads(sys.stdin.buffer.read())
        x = np.linspace(0, 6, 7)
        print(f(x, 1.0).tolist(), g(np.ones((3, 2))).tolist())
        print("def f(t, b):" in f.source(x, 1.0))
        ''')
    out = subprocess.run([sys.executable, "-c", load], input=data, check=True,
                         capture_output=True, timeout=120, env=env).stdout.decode().split("\n")
    x = np.linspace(0, 6, 7)
    assert out[0] == f"{np.where(x > 5, x * x, -x).tolist()} [2.0, 2.0, 2.0]"
    assert out[1] == "True"


def test_a_copy_loaded_in_the_same_process_is_the_same_callable():
    import cloudpickle
    f = vectorize(lambda x: x * 2)
    assert cloudpickle.loads(cloudpickle.dumps(f)) is f
    v = vmap(seed, in_axes=(0, None))
    assert cloudpickle.loads(cloudpickle.dumps(v)) is v


# ------------------------------------------------------------------------------- xarray
def test_xarray_apply_ufunc_recipe():
    xr = pytest.importorskip("xarray")
    f = vectorize(seed)
    r = vectorize(rms, signature="(n)->()")
    values = np.linspace(-2, 10, 60).reshape(12, 5)
    arr = xr.DataArray(values, dims=("time", "space")).chunk({"time": 4, "space": 2})
    out = xr.apply_ufunc(f, arr, 1.5, dask="parallelized", output_dtypes=[float])
    assert isinstance(out.data, da.Array) and out.dims == ("time", "space")
    np.testing.assert_array_equal(out.values, f(values, 1.5))
    out = xr.apply_ufunc(f, arr, 1.5, dask="allowed")       # Dask arrays straight in
    assert isinstance(out.data, da.Array)
    np.testing.assert_array_equal(out.values, f(values, 1.5))
    out = xr.apply_ufunc(r, arr, input_core_dims=[["space"]], dask="parallelized",
                         output_dtypes=[float], dask_gufunc_kwargs={"allow_rechunk": True})
    assert out.dims == ("time",)
    np.testing.assert_array_equal(out.values, r(values))
    out = xr.apply_ufunc(r, arr, input_core_dims=[["time"]], dask="allowed")
    assert out.dims == ("space",)
    np.testing.assert_array_equal(out.values, r(values.T))


# --------------------------------------------------------------------------- distributed
@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    import cloudpickle
    # this module is importable here, not in the workers: its functions travel by value,
    # as those of a script or a notebook do
    module = sys.modules[__name__]
    cloudpickle.register_pickle_by_value(module)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
            dashboard_address=None, worker_dashboard_address=None, death_timeout=60)
    try:
        with distributed.Client(cluster, timeout=60) as c:
            yield c
    finally:
        cluster.close(timeout=30)
        cloudpickle.unregister_pickle_by_value(module)


def test_local_cluster_runs_a_rewritten_file(client, rewritten):
    # (its module is not in sys.modules: cloudpickle sends its functions by value)
    lazy, eager = rewritten_calls(rewritten)
    for got, expected in zip(client.gather(client.compute(lazy)), eager):
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


def test_local_cluster_runs_the_generated_code(client, tmp_path):
    """The workers make the specializations from the source sent along (or, as here, read
    them from the disk cache the eager calls filled: ``cache_dir`` travels too)."""
    cache = str(tmp_path / "cache")
    f = vectorize(seed, fallback="error", cache_dir=cache)
    h = vectorize(halvings, fallback="error", cache_dir=cache)
    s = vectorize(cosine, signature="(n),(n)->()", fallback="error", cache_dir=cache)
    v = vmap(score, in_axes=(1, None), cache_dir=cache)
    x = np.linspace(-4, 12, 1001)
    n = np.arange(-5, 2000, 3)
    m = np.random.default_rng(3).normal(size=(300, 4))
    w = np.array([1.0, -1.0, 0.5, 2.0])
    eager = [f(x, 1.5), h(n), s(m, w), *v(m.T, w)]
    lazy = [f(da.from_array(x, chunks=97), 1.5), h(da.from_array(n, chunks=64)),
            s(da.from_array(m, chunks=(50, 2)), w), *v(da.from_array(m.T, chunks=(4, 70)), w)]
    got = client.gather(client.compute(lazy), )
    for a, b in zip(got, eager):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    # each worker loaded the callables it ran once and made their specializations there
    loaded = client.run(_loaded_specializations)
    assert len(loaded) == 2
    made = {}
    for counts in loaded.values():
        for name, count in counts.items():
            made[name] = made.get(name, 0) + count
    assert all(made.get(name, 0) > 0 for name in ("seed", "halvings", "cosine", "score")), made
    assert sum(client.run(_disk_cache_hits).values()) > 0


def _disk_cache_hits():
    from vectorize import diskcache
    return diskcache.stats["hits"]


def _loaded_specializations():
    from vectorize import pickling
    return {getattr(obj, "__name__", "?"): len(obj._specs) for obj in pickling._loaded.values()}


def test_the_large_example_at_a_small_size(client):
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    try:
        import cloudpickle
        import dask_large
        cloudpickle.register_pickle_by_value(dask_large)
        t, root = dask_large.build(50_000, 8_000)
        t_values, root_values = client.gather(client.compute([t, root]))
        np.testing.assert_array_equal(root_values, dask_large.func(t_values, 1.5))
        result = dask_large.measure(client, 100_000, 10_000)
        assert result["positive"] > 0 and set(result["workers"]) == set(
            client.scheduler_info()["workers"])
        assert all(m["peak_mib"] >= m["baseline_mib"] > 0 for m in result["workers"].values())
    finally:
        sys.path.remove(os.path.join(ROOT, "examples"))
        cloudpickle.unregister_pickle_by_value(dask_large)
