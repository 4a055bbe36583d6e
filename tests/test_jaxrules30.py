"""``jax.lax`` and ``x.at[index].op(...)`` in the user's per-example code (the JAX backend's
``jax.lax`` rules, `vectorize.backends.jax.lax_rules`).

Each case is compared, values and dtype, with ``jax.vmap`` of the same function and with the
per-example loop (the function called on each example's rows, results stacked): with
float32 and int32 inputs as JAX's default has them, and with float64 and int64 inside
``jax.enable_x64``. Per-example offsets and indices include negative and out-of-bounds
ones (JAX clamps dynamic slices and gathers, drops out-of-bounds scatters). Functions with a
Python ``if`` on a value that ``lax`` computed (which ``jax.vmap`` refuses) are compared
with the loop only. On the NumPy and PyTorch backends a ``jax`` function of per-example
values is refused, located at the call.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from vectorize import VectorizeError, backends, vmap

N = 6
# per-example offsets / indices: negative, in bounds, past the end (rows of length 4)
IDX = [-5, -1, 0, 2, 3, 7]


def _inputs(x64: bool):
    f = np.float64 if x64 else np.float32
    i = np.int64 if x64 else np.int32
    rng = np.random.default_rng(30)
    return {
        "x": rng.standard_normal(N).astype(f),
        "v": rng.standard_normal((N, 4)).astype(f),
        "u": rng.standard_normal((N, 2)).astype(f),
        "m": rng.standard_normal((N, 3, 4)).astype(f),
        "i": np.array(IDX, dtype=i),
        "n": np.array([0, 1, 3, -2, 5, 2], dtype=i),
    }


# ----------------------------------------------------------------------------- the cases
def select(x, v):
    return lax.select(v > x, v, -v)


SHARED = jnp.asarray([1.5, -2.0, 0.25, 4.0], dtype=jnp.float32)


def select_shared(v):
    return lax.select(v[0] > 0, SHARED, -SHARED)


def slice_(v):
    return lax.slice(v, (1,), (4,), (2,))


def dynamic_slice(v, i):
    return lax.dynamic_slice(v, (i,), (2,))


def dynamic_slice_2d(m, i):
    return lax.dynamic_slice(m, (i, i + 1), (2, 2))


def dynamic_update_slice(v, u, i):
    return lax.dynamic_update_slice(v, u, (i,))


def rev(m):
    return lax.rev(m, (1,))


def pad(v, x):
    return lax.pad(v, x, ((1, 2, 1),))


def concatenate(v, u):
    return lax.concatenate([v, u, lax.convert_element_type(SHARED[:2], v.dtype), v], 0)


def sort(v):
    return lax.sort(v)


def sort_pair(v, u):
    keys, values = lax.sort((v[:2], u), num_keys=1)
    return keys * values


def dot_general(m, v):
    return lax.dot_general(m, v, (((1,), (0,)), ((), ())))


def elementwise(x):
    return lax.sin(x) + lax.exp(x)


def cond(x):
    return lax.cond(x > 0, lambda a: a * 2, lambda a: a - 1, x)


def cond_rows(v, x):
    return lax.cond(x > 0, lambda a: a[::-1], lambda a: a * 3.0, v)


def fori_loop(x, n):
    return lax.fori_loop(0, n, lambda k, a: a * 0.5 + k, x)


def fori_loop_tuple(x, n):
    return lax.fori_loop(0, n, lambda k, c: (c[0] + c[1], c[1] * 2), (x, 1.0))[0]


def switch(x, i):
    return lax.switch(i, [lambda a: a + 1, lambda a: a * 3, lambda a: -a], x)


def scan(v):
    return lax.scan(lambda c, a: (c + a, c * a), 0.0, v)


def while_loop(x, n):
    return lax.while_loop(lambda c: c[0] < c[1], lambda c: (c[0] + 1, c[1], c[2] * 1.5 + 1),
                          (0, n, x))[2]


def at_set(v, i, x):
    return v.at[i].set(x)


def at_add(v, i, x):
    return v.at[i].add(x)


def at_multiply(v, i, x):
    return v.at[i].multiply(x)


def at_min(v, i, x):
    return v.at[i].min(x)


def at_max(v, i):
    return v.at[i].max(0.25)


def at_get(v, i):
    return v.at[i].get()


def at_get_fill(v, i):
    return v.at[i].get(mode="fill", fill_value=-9.0)


def at_shared_index(v, x):
    return v.at[1].set(x)


def at_rows(m, i, x):
    return m.at[1, i].set(x)


def at_slice(m, i):
    return m.at[:, i].set(0.0)


def structure(x, v, u, m, i):
    """Every structural and indexing rule at once (one compile per dtype setting)."""
    return (select(x, v), select_shared(v), slice_(v), dynamic_slice(v, i),
            dynamic_slice_2d(m, i), dynamic_update_slice(v, u, i), rev(m), pad(v, x),
            concatenate(v, u), sort(v), sort_pair(v, u), dot_general(m, v), elementwise(x))


def control(x, v, n, i):
    return (cond(x), cond_rows(v, x), fori_loop(x, n), fori_loop_tuple(x, n),
            while_loop(x, n), switch(x, i), scan(v))


def indexed(v, m, i, x):
    return (at_set(v, i, x), at_add(v, i, x), at_multiply(v, i, x), at_min(v, i, x),
            at_max(v, i), at_get(v, i), at_get_fill(v, i), at_shared_index(v, x),
            at_rows(m, i, x), at_slice(m, i))


CASES = [(structure, "xvumi"), (control, "xvni"), (indexed, "vmix")]
PARTS = [select, select_shared, slice_, dynamic_slice, dynamic_slice_2d, dynamic_update_slice,
         rev, pad, concatenate, sort, sort_pair, dot_general, elementwise, cond, cond_rows,
         fori_loop, fori_loop_tuple, while_loop, switch, scan, at_set, at_add, at_multiply,
         at_min, at_max, at_get, at_get_fill, at_shared_index, at_rows, at_slice]


def _loop(f, args, jit=True):
    one = jax.jit(f) if jit else f
    rows = [one(*[a[k] for a in args]) for k in range(len(args[0]))]
    return jax.tree_util.tree_map(lambda *r: jnp.stack(r), *rows)


def _check(f, kinds, x64):
    with jax.enable_x64(x64):
        data = _inputs(x64)
        args = [jnp.asarray(data[k]) for k in kinds]
        got = vmap(f)(*args)
        wanted = [jax.jit(jax.vmap(f))(*args)]
        if x64:      # (jax.vmap equals the loop on JAX's own code: checked once, compiles cost)
            wanted.append(_loop(f, args))
        for want in wanted:
            leaves, wanted = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
            assert len(leaves) == len(wanted)
            for k, (a, b) in enumerate(zip(leaves, wanted)):
                assert isinstance(a, jax.Array)
                assert a.dtype == b.dtype, (k, a.dtype, b.dtype)
                np.testing.assert_allclose(np.asarray(a), np.asarray(b),
                                           rtol=1e-12 if x64 else 2e-6, atol=0,
                                           err_msg=f"result {k}")


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
@pytest.mark.parametrize("f, kinds", CASES, ids=[f.__name__ for f, _ in CASES])
def test_lax_and_at_match_jax_vmap_and_the_loop(f, kinds, x64):
    _check(f, kinds, x64)


def covered_rules(parts) -> set:
    """The rules of the JAX registry the case functions ``parts`` exercise (by the `lax`
    functions and `.at` methods they name)."""
    reg = backends.get("jax").registry
    covered = set()
    for f in parts:
        for name, fn in vars(lax).items():
            if callable(fn) and name in f.__code__.co_names and reg.for_call(fn):
                covered.add(reg.for_call(fn).name)
        if "at" in f.__code__.co_names:
            covered.add(reg.indexed_update.name)
    return covered


def test_every_jax_lax_rule_has_a_case():
    """Every rule of the family is exercised by a case above (the rule case table of the
    JAX-only rules: `tests/test_rules_jax.py -k tables_are` checks it with this file's)."""
    from vectorize.backends.jax import lax_rules
    reg = backends.get("jax").registry
    rules = {r.name for r in reg.all_rules if r.family == lax_rules.FAMILY}
    assert rules == covered_rules(PARTS)
    for name in ("numpy", "torch"):
        assert backends.get(name).registry.for_call(lax.rev).name == "refused.jax_function"


# ------------------------------------------------- the engine's own code around lax
def python_if_after_lax(v, i):
    y = lax.dynamic_slice(v, (i,), (2,))
    if y[0] > 0:              # jax.vmap refuses this `if`
        return y[1] * 2
    return -y[1]


def python_while_around_at(v, i):
    k = 0
    while v[0] < 3.0 and k < 4:
        v = v.at[i].add(1.0)
        k += 1
    return v


def writes_under_ifs(x, k):
    y = jnp.zeros(3)
    y = y.at[0].set(x * x)
    if x > 0:
        y = y.at[1].set(y[1] + jnp.sin(x) * 2)
    else:
        y = y.at[2].set(-x)
    if 0 <= k < 3:
        y = y.at[k].set(y[k] * x)
    return jnp.sum(y * y)


@pytest.mark.parametrize("f, x64", [(python_if_after_lax, False),
                                    (python_while_around_at, True)])
def test_python_control_flow_around_lax_matches_the_loop(f, x64):
    with jax.enable_x64(x64):
        data = _inputs(x64)
        args = [jnp.asarray(data["v"]), jnp.asarray(data["i"])]
        got = vmap(f)(*args)
        loop = _loop(f, args, jit=False)     # (a Python `if` on a value: not traceable)
        assert got.dtype == loop.dtype
        np.testing.assert_allclose(np.asarray(got), np.asarray(loop),
                                   rtol=1e-12 if x64 else 2e-6, atol=0)


def loop_count(x, n):
    return lax.while_loop(lambda c: c[0] < c[1], lambda c: (c[0] + 1, c[1]), (0, n))[0]


def test_a_python_int_in_lax_code_is_int64_as_the_backend_computes():
    """Documented (docs/jax.md): the generated code runs with 64-bit types, so a Python int
    in the carry (``0``) is int64 there, as the per-example code under ``jax.enable_x64``
    has it; ``jax.vmap`` without x64 gives int32. The values are the same."""
    data = _inputs(False)
    x, n = jnp.asarray(data["x"]), jnp.asarray(data["n"])
    got = vmap(loop_count)(x, n)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(np.asarray(got), np.asarray(jax.vmap(loop_count)(x, n)))
    with jax.enable_x64(True):
        assert jax.vmap(loop_count)(x, n).dtype == got.dtype


def at_on_created(i, x):
    y = jnp.zeros(4)
    y = y.at[i].set(x)
    return y.at[i].get() + y[0]


def test_at_on_an_array_the_function_creates():
    """``jnp.zeros(4)`` the same for every example (the analysis computes it through its
    NumPy twin), then updated at a per-example index: under x64, as the generated code
    runs, the same as jax.vmap and the loop."""
    _check(at_on_created, "ix", True)


def test_at_updates_under_python_ifs_match_the_loop():
    """`.at[]` updates in branches of a per-example `if` (which jax.vmap refuses)."""
    with jax.enable_x64(True):
        x, k = jnp.array([1.5, -2.0, 0.3, 0.0]), jnp.array([0, 5, 2, -1])
        got = vmap(writes_under_ifs)(x, k)
        loop = _loop(writes_under_ifs, [x, k], jit=False)
        assert got.dtype == loop.dtype == jnp.float64
        np.testing.assert_allclose(np.asarray(got), np.asarray(loop), rtol=1e-13)


def test_numpy_in_numpy_out_with_backend_jax():
    with jax.enable_x64(True):
        data = _inputs(True)
        got = vmap(dynamic_slice, backend="jax")(data["v"], data["i"])
        assert isinstance(got, np.ndarray) and got.dtype == np.float64
        want = np.asarray(jax.vmap(dynamic_slice)(data["v"], data["i"]))
        np.testing.assert_array_equal(got, want)


# ---------------------------------------------------------------------- refusals
def int32_offset_with_a_literal(m, i):
    return lax.dynamic_slice(m, (i, 1), (2, 2))


def test_what_jax_refuses_under_x64_is_refused_located():
    """The generated code runs with 64-bit types (as every JAX-backend function does): an
    int32 offset beside a Python int is int32 and int64 there, which `lax.dynamic_slice`
    rejects (JAX's own check). Refused at the call; with int64 offsets it runs."""
    data = _inputs(False)
    with pytest.raises(VectorizeError) as info:
        vmap(int32_offset_with_a_literal)(jnp.asarray(data["m"]), jnp.asarray(data["i"]))
    assert "test_jaxrules30.py" in str(info.value)
    with jax.enable_x64(True):
        _check(int32_offset_with_a_literal, "mi", True)


def closes_over(x, v):
    return lax.cond(x > 0, lambda a: a + v, lambda a: a, x)


def test_a_branch_reading_the_functions_values_is_refused_located():
    x, v = jnp.ones(3), jnp.ones(3)
    with pytest.raises(VectorizeError) as info:
        vmap(closes_over)(x, v)
    assert "test_jaxrules30.py" in str(info.value) and "lambda" in str(info.value)


def test_jax_functions_are_refused_located_on_numpy():
    with pytest.raises(VectorizeError) as info:
        vmap(rev)(np.ones((3, 2, 2)))
    text = str(info.value)
    assert "test_jaxrules30.py" in text and "lax.rev" in text and 'backend="jax"' in text


def test_jax_functions_are_refused_located_on_torch():
    torch = pytest.importorskip("torch")
    with pytest.raises(VectorizeError) as info:
        vmap(rev)(torch.ones((3, 2, 2)))
    text = str(info.value)
    assert "test_jaxrules30.py" in text and "lax.rev" in text


def test_at_is_refused_located_on_numpy():
    with pytest.raises(VectorizeError) as info:
        vmap(at_set)(np.ones((3, 4)), np.zeros(3, dtype=np.int64), np.ones(3))
    assert "test_jaxrules30.py" in str(info.value)
