"""The wide generators (`fuzz/wide_programs.py`: vmap calling patterns, dtypes and NEP 50
literals, control flow, NumPy functions on per-example arrays) on a few seeds per family, and
the bugs their long runs (`benchmarks/fuzz_wide.py`) found, each as its minimized program
against the per-example loop."""

from __future__ import annotations

import textwrap
import warnings

import numpy as np
import pytest
from fuzz import wide_programs
from fuzz.harness import ModuleWriter, Program

from vectorize import VectorizeError, vectorize, vmap

# ------------------------------------------------------------------ the generators in CI

SEEDS = {"axes": range(25), "dtypes": range(40), "flow": range(25), "vecops": range(30),
         "condwrites": range(15), "lists": range(15)}


@pytest.fixture(scope="module")
def writer(tmp_path_factory):
    return ModuleWriter(tmp_path_factory.mktemp("wide"))


@pytest.mark.parametrize("family", wide_programs.FAMILIES)
def test_wide_programs(writer, family):
    kinds, failures = {}, []
    for seed in SEEDS[family]:
        source, api, features, run = wide_programs.case(family, seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outcome = run(writer)
        kinds[outcome.kind] = kinds.get(outcome.kind, 0) + 1
        if outcome.kind in ("mismatch", "internal"):
            failures.append(f"seed {seed} {api} ({', '.join(features)}): {outcome.kind} at "
                            f"{outcome.call}: {outcome.detail[:800]}\n{source}")
    assert not failures, "\n\n".join(failures)
    # most programs are compared, not refused
    assert kinds.get("ok", 0) >= len(SEEDS[family]) // 3, kinds


def test_the_reference_loop_of_nested_vmap_places_axes():
    """`ref_vmap` itself (the fuzzer's reference) against hand-written indexing."""
    x = np.arange(24.0).reshape(2, 3, 4)
    ref = wide_programs.ref_vmap(wide_programs.ref_vmap(lambda a, b: a * b, (1, None), 0),
                                 (0, None), -1)
    got = ref(x, 2.0)        # [j, k, i] = x[i, k, j] * 2
    assert got.shape == (4, 3, 2)
    np.testing.assert_array_equal(got, np.transpose(x, (2, 1, 0)) * 2.0)
    same = wide_programs.ref_vmap(wide_programs.ref_vmap(lambda a, b: a * b, (1, None), -1),
                                  (0, None), 0)
    np.testing.assert_array_equal(same(x, 2.0), x * 2.0)


# ----------------------------------------------------------------- bugs the runs found


def _load(writer, source: str, name: str = "f"):
    return writer.load(Program("import math\n\nimport numpy as np\n\n\n"
                               + textwrap.dedent(source), (), 1), name)


def _loop(f, *args):
    return np.stack([np.asarray(f(*row)) for row in zip(*args)])


AXIS_CASES = [
    # np.sum(axis=-1) of a per-example scalar summed over the batch: one number for all
    ("def f(w):\n    return np.sum(w * 1.0, axis=-1, keepdims=True)\n", (3,)),
    ("def f(w):\n    return np.sum(w, axis=0)\n", (3,)),
    # an axis counted from the end past the example's rank named the batch axis
    ("def f(m):\n    return np.swapaxes(m, -3, 1)\n", (2, 3, 4)),
    ("def f(m):\n    return np.moveaxis(m, -3, 0)\n", (2, 3, 4)),
    ("def f(m):\n    return np.expand_dims(m, -4)\n", (2, 3, 4)),
    ("def f(m):\n    return np.transpose(m, (1, -3))\n", (2, 3, 4)),
    ("def f(m):\n    return np.cumsum(m, axis=2)\n", (2, 3, 4)),
]


@pytest.mark.parametrize("source, shape", AXIS_CASES)
@pytest.mark.parametrize("n", [0, 1, 5])
def test_an_axis_the_examples_do_not_have_is_refused(writer, source, shape, n):
    """Found by the `axes` family: an axis out of the per-example rank (negative ones
    reached the batch axis) gave one result for the whole batch or moved the batch axis;
    now refused with its location (NumPy raises AxisError per example, but for the
    reductions that take axis 0 / -1 of a 0-d value as a no-op)."""
    f = _load(writer, source)
    x = np.arange(float(np.prod(shape))).reshape(shape)[:max(n, 1)]
    x = x[:n] if n else x[:0]
    with pytest.raises(VectorizeError, match="out of bounds for a per-example value"):
        vmap(f)(x)


@pytest.mark.parametrize("n", [0, 1, 5, 1000])
def test_axes_within_the_example_rank_still_work(writer, n):
    f = _load(writer, """
        def f(m):
            a = np.sum(m, axis=-2, keepdims=True)
            b = np.expand_dims(m, -3)
            c = np.swapaxes(m, -2, -1)
            return a, b, c
        """)
    x = np.random.default_rng(n).normal(size=(n, 3, 4))
    got = vmap(f)(x)
    for k, part in enumerate(got):
        expected = np.stack([f(row)[k] for row in x]) if n else None
        if n:
            np.testing.assert_array_equal(part, expected)
        else:
            assert part.shape[0] == 0


@pytest.mark.parametrize("n", [0, 1, 5, 1000])
def test_batch_size_from_a_container_argument_in_a_loop(writer, n):
    """Found by the `axes` family: a function whose only per-example arguments are items
    of a dict (or namedtuple) crashed with an internal IndexError where a loop needed the
    batch size (a carry made an array before the loop)."""
    f = _load(writer, """
        def f(d, s=1.0):
            t = 0.0
            for k in range(2):
                if d["w"] > k:
                    t = t + d["w"] * s
            return t
        """)
    rng = np.random.default_rng(n)
    w, u = rng.normal(size=n) * 3, rng.normal(size=(n, 2))
    got = vmap(f)({"u": u, "w": w}, s=2.0)
    expected = np.array([f({"u": a, "w": b}, s=2.0) for a, b in zip(u, w)], dtype=float)
    np.testing.assert_array_equal(got, expected)
    # nested, with the dict's leaves mapped at different axes
    g = vmap(vmap(f, in_axes=({"u": -1, "w": -1},)), in_axes=({"u": -2, "w": -1},))
    inner = rng.normal(size=(3, max(n, 1)))[:, :n]
    got = g({"u": np.ones((n, 3)), "w": inner}, s=0.5)
    assert got.shape == (n, 3)
    expected = np.array([[f({"u": 1.0, "w": inner[i, j]}, s=0.5) for i in range(3)]
                         for j in range(n)]).reshape(n, 3)
    np.testing.assert_array_equal(got, expected)


def test_a_long_function_is_read_despite_extended_jumps(writer):
    """Found by the `flow` family: the check that a function's file holds its code compared
    bytecode with `EXTENDED_ARG`s, which a long jump needs or not depending on the offsets
    (method loads of imported modules move them), so long functions were refused as 'the
    file changed since the function was defined'."""
    f = _load(writer, """
        def f(x, y):
            a, b, tot = x * 1.0, y * 1.0, 0.0
            for k9 in range(int(min(abs(x), 4.0)) if math.isfinite(x) else 2):
                for k11 in [0.5, -1.5, 2.0, 3.0]:
                    tot = tot + k11 * a
                    for k12 in range(3):
                        tot = tot + sum([a if a > j else j * 1.0 for j in range(3)])
                    if abs(a) < 2.0:
                        tot = tot + sum([a if a > j else j * 1.0 for j in range(3)])
                        a = a * 0.5 - 1.0
                    else:
                        tot += a * 0.5
                    for k13 in range(int(min(abs(x), 4.0)) if math.isfinite(x) else 2):
                        a = a * 0.5 - 1.0
                        a = a * 0.5 - 1.0
                        a, b = b, a + b
            return a + tot
        """)
    from vectorize.source import read_function
    read_function(f)       # raised VectorizeError ("... is not the code it runs")
    x = np.array([0.5, -3.0, np.nan, 2.0, np.inf])
    y = np.array([0.0, 1.0, -1.0, 2.0, 0.5])
    got = vectorize(f, fallback="error")(x, y)
    np.testing.assert_array_equal(got, np.vectorize(f)(x, y))


INVERSIONS = [
    ("def f(y):\n    return ~y | 5\n", np.array([3, 0, 255, 7], np.uint8)),
    ("def f(y):\n    return (~y) & 255\n", np.array([3, 0, 255, 7], np.uint8)),
    ("def f(y):\n    return ~y + 1\n", np.array([3, 0, 255, 7], np.uint16)),
    ("def f(b):\n    return ~b\n", np.array([True, False, True])),
    ("def f(x):\n    return ~(x > 0) * 1.0\n", np.array([1.0, -2.0, 0.0, np.nan])),
    ("def f(y):\n    return ~y\n", np.array([3, 0, -128, 127], np.int8)),      # as NumPy's
]


@pytest.mark.parametrize("source, x", INVERSIONS)
@pytest.mark.parametrize("n", [1, 4, 1000])
def test_invert_of_unsigned_ints_and_bools_is_pythons(writer, source, x, n):
    """Found by the `dtypes` family: ``~y`` of a uint8 example is ``-(y + 1)`` in Python
    (numpy.vectorize then cannot store it: OverflowError), and ``~b`` of a bool is -1 / -2;
    the batch computed NumPy's complement in uint8 and logical not, silently."""
    f = _load(writer, source)
    x = np.resize(x, n)
    try:
        expected = np.vectorize(f)(x)
    except Exception as exc:  # noqa: BLE001 -- the type is compared
        with pytest.raises(type(exc)):
            vectorize(f, fallback="error")(x)
        return
    got = vectorize(f, fallback="error")(x)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("n", [0, 1, 5, 1000])
def test_a_loop_over_an_empty_literal_range_decides_no_type(writer, n):
    """Found by the `axes` family: ``t = 0.0`` then ``for k in range(0): t = t + s`` with
    a float32 ``s`` is a Python float per example (float64 when stacked); the batch took the
    body's float32. A loop over an empty literal range is now its ``else:`` block."""
    f = _load(writer, """
        def f(a):
            t = 0.0
            for k in range(0):
                t = t + np.sum(a) * k
            u = 1.0
            for j in range(3, 1):
                u = u + a[0]
            else:
                u = u - 1.0
            return t, u
        """)
    a = np.random.default_rng(n).normal(size=(n, 2)).astype(np.float32)
    got = vmap(f)(a)
    for k, part in enumerate(got):
        expected = np.array([f(row)[k] for row in a]) if n else np.zeros(0)
        assert part.dtype == expected.dtype == np.float64
        np.testing.assert_array_equal(part, expected)


CONTAINER_RETURNS = [
    # numpy.vectorize: ValueError storing a sequence; the batch returned two outputs
    "def f(x):\n    return [x, x + 1.0]\n",
    # numpy.vectorize: an object array of dicts; the batch returned a tuple of key arrays
    "def f(x):\n    return {'p': x}\n",
    "def f(x):\n    r = 2.0\n    return {'p': r, 'q': x}\n",
    # numpy.vectorize: ValueError; the batch crashed inside the engine
    "def f(x):\n    return x, (x, x)\n",
]


@pytest.mark.parametrize("source", CONTAINER_RETURNS)
def test_vectorize_refuses_returned_containers_it_cannot_return_as_numpy_does(writer,
                                                                             source):
    """Found by the `axes` family (a dict display of constants, now a pytree): under
    numpy.vectorize's contract a returned tuple is one output per item, anything else one
    value per example."""
    f = _load(writer, source)
    x = np.array([1.0, -2.0, 0.5])
    with pytest.raises(VectorizeError, match="returning a"):
        vectorize(f, fallback="error")(x)


@pytest.mark.parametrize("n", [0, 1, 5, 1000])
def test_dict_displays_of_constants(writer, n):
    """Found by the `axes` family: ``(t, {"p": r})`` with a constant ``r`` and a local
    table ``{0: 1.5, 1: -2.0}`` were refused as 'a dict of per-example values'; a dict
    display of constants is now a constant (a table looked up per example, as a
    module-level one) or, with names in it, a pytree of constants."""
    f = _load(writer, """
        def f(x):
            d = {0: 1.5, 1: -2.0}
            r = 2.0
            return x * d[int(x > 0)], {"p": r, "q": d[1] * x}
        """)
    x = np.random.default_rng(n).normal(size=n)
    got = vmap(f)(x)
    assert list(got[1]) == ["p", "q"]
    if n:
        np.testing.assert_array_equal(got[0], np.array([f(e)[0] for e in x]))
        np.testing.assert_array_equal(got[1]["p"], np.array([f(e)[1]["p"] for e in x]))
        np.testing.assert_array_equal(got[1]["q"], np.array([f(e)[1]["q"] for e in x]))
    g = _load(writer, """
        def g(x):
            d = {0: 1.5, 1: -2.0}
            return x * d[int(x > 0)]
        """, "g")
    np.testing.assert_array_equal(vectorize(g, fallback="error")(x),
                                  np.vectorize(g, otypes=[float])(x))


@pytest.mark.parametrize("n", [1, 5, 1000])
def test_signature_call_replays_numpy_vectorize_where_the_batch_raises(writer, n):
    """Found by the `vecops` family through ``vectorize(signature=...)``: where the batched
    code raised (here a check for Python's int overflow on a NumPy int, which wraps), the
    signature path let the exception out; numpy.vectorize returns (wrapped ints, with
    NumPy's warning). It now replays numpy.vectorize as the path without a signature does."""
    f = _load(writer, """
        def f(x, y):
            r0 = np.sum(x, axis=-1)
            if np.sum(x) > y:
                r0 = r0 * 2
            else:
                r0 = r0 - 1
            return r0
        """)
    rng = np.random.default_rng(n)
    x = rng.integers(-5, 5, size=(n, 3))
    x[0, 2] = 2 ** 62 + 5            # doubled: beyond int64, wraps in NumPy
    y = rng.integers(-5, 5, size=n)
    y[0] = -100
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = np.vectorize(f, signature="(n),()->()")(x, y)
        got = vectorize(f, signature="(n),()->()", fallback="error")(x, y)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)
