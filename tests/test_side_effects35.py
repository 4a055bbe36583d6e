"""What a call does to the caller's arguments: a differential generator of side effects.

Both references may change the caller's arguments, and their state after the call is part
of the result: ``vmap``'s loop hands out rows (views) of the caller's arrays and, for a
1-D tensor, its 0-d items (views too: ``x += 1`` changes the caller's tensor, as
torch.func.vmap's does); numpy.vectorize hands out numbers and read-only rows; an argument
passed as it is (``excluded``, ``in_axes=None``) is the same list, dict or array for every
example. Each case runs one in-place operation (an augmented assignment, a tensor's
in-place method, ``out=``, a write through ``[...]`` / ``[:]``, ``append`` / an item write on
a shared list or dict, an update of a shared array) at the top level, under a per-example
``if``, in a helper (its result thrown away or returned, or given the shared object only), or
through a second name, under
every api and backend, and compares what we return AND the arguments afterwards with the
reference run on fresh copies. Where we refuse (a located VectorizeError), ``vectorize``'s
default warned fallback must give the reference's effect.
"""

from __future__ import annotations

import importlib.util
import itertools
import warnings

import numpy as np
import pytest

from vectorize import VectorizeError, vectorize, vmap

torch = pytest.importorskip("torch")

try:
    import jax.numpy as jnp
except ImportError:     # (optional: its cases are skipped)
    jnp = None

# name: (the statement on the per-example `x` or the shared `s`, the backends it runs on)
OPERATIONS = {
    "aug": ("x += 1", ("numpy", "torch", "jax")),
    "add_": ("x.add_(1)", ("torch",)),
    "mul_": ("x.mul_(2)", ("torch",)),
    "clamp_": ("x.clamp_(0, 2)", ("torch",)),
    "fill_": ("x.fill_(3)", ("torch",)),
    "out": ("np.add(x, 1, out=x)", ("numpy",)),
    "ellipsis": ("x[...] = 5", ("numpy", "torch")),
    "slice": ("x[:] = 5", ("numpy", "torch")),
    "append": ("s.append(x)", ("numpy", "torch", "jax")),
    "dict": ("s['k'] = x", ("numpy", "torch", "jax")),
    "shared_aug": ("s += x", ("numpy",)),
    "shared_item": ("s[0] = x", ("numpy",)),
    "append_const": ("s.append(1)", ("numpy", "torch", "jax")),
    "pop": ("s.pop()", ("numpy", "torch", "jax")),
    "update": ("s.update(k=1)", ("numpy",)),
}
SHARED = {"append": list, "dict": dict, "append_const": list, "pop": lambda: list(range(6)),
          "update": dict}     # else a list (unused), or a NumPy array
# a change of an `excluded` list or dict that reads no per-example value runs once per batched
# call, not once per example: the divergence docs/semantics.md's table lists (its tests:
# test_semantics, test_hunt_regressions); vmap's loop and ours are compared
ONCE_PER_CALL = frozenset({"append_const", "pop", "update"})
CONTEXTS = ("top", "if", "helper", "helper_shared", "helper_ret", "alias")
APIS = ("vectorize", "signature", "vmap")


def _source() -> str:
    out = ["import numpy as np\n\n\n"]
    for (op, (stmt, _)), ctx in itertools.product(OPERATIONS.items(), CONTEXTS):
        name = f"f_{op}_{ctx}"
        if ctx == "top":
            body = f"    {stmt}\n"
        elif ctx == "if":
            body = f"    if c > 0:\n        {stmt}\n"
        elif ctx == "helper":
            out.append(f"def {name}_h(x, c, s):\n    {stmt}\n\n\n")
            body = f"    {name}_h(x, c, s)\n"
        elif ctx == "helper_shared":   # a helper given the shared object only
            if "x" in stmt:
                continue
            out.append(f"def {name}_h(s):\n    {stmt}\n\n\n")
            body = f"    {name}_h(s)\n"
        elif ctx == "helper_ret":
            out.append(f"def {name}_h(x, c, s):\n    {stmt}\n    return x\n\n\n")
            out.append(f"def {name}(x, c, s):\n    return {name}_h(x, c, s) * 2\n\n\n")
            continue
        else:   # through a second name bound to the parameter
            body = "    y = x\n    " + stmt.replace("x", "y", 1) + "\n"
        out.append(f"def {name}(x, c, s):\n{body}    return x * 2\n\n\n")
    return "".join(out)


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    path = tmp_path_factory.mktemp("side_effects35") / "side_effect_cases35.py"
    path.write_text(_source())
    spec = importlib.util.spec_from_file_location("side_effect_cases35", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, str(path)


def _arguments(backend, rows, op):
    x = np.arange(6.).reshape(2, 3) if rows else np.array([0.5, 1.5, 2.5])
    c = np.array([1.0, -1.0]) if rows else np.array([1.0, -1.0, 1.0])
    convert = {"numpy": np.array, "torch": torch.tensor,
               "jax": jnp.array if jnp is not None else None}[backend]
    shared = SHARED[op]() if op in SHARED else np.zeros(3) if op.startswith("shared") else []
    return convert(x), convert(c), shared


def _state(v):
    """A comparable snapshot: type, dtype, shape and items, recursively."""
    if isinstance(v, list):
        return ["list", [_state(i) for i in v]]
    if isinstance(v, dict):
        return ["dict", {k: _state(i) for k, i in v.items()}]
    if isinstance(v, torch.Tensor):
        return ["tensor", str(v.dtype), tuple(v.shape), v.detach().clone().numpy().tolist()]
    a = np.asarray(v)
    return [type(v).__name__, str(a.dtype), a.shape, a.tolist()]


def _run(api, f, backend, rows, op, *, reference, fallback="error"):
    """(what the call gave: ("returned", state) or ("raised", type)), the arguments' state
    after it."""
    x, c, s = _arguments(backend, rows, op)
    try:
        if api == "vmap":
            if reference:
                results = [f(x[i], c[i], s) for i in range(len(x))]
                stack = {"numpy": np.stack, "torch": torch.stack,
                         "jax": jnp.stack if jnp is not None else None}[backend]
                result = stack(results)
            else:
                result = vmap(f, in_axes=(0, 0, None), fallback=fallback)(x, c, s)
        else:
            options = {"signature": "(n),()->(n)"} if api == "signature" else {}
            if reference:
                result = np.vectorize(f, excluded={2}, **options)(x, c, s)
            else:
                result = vectorize(f, excluded={2}, fallback=fallback, **options)(x, c, s)
        outcome = ("returned", _state(result))
    except VectorizeError:
        raise
    except Exception as e:  # noqa: BLE001 (the exception's type is the result)
        outcome = ("raised", type(e).__name__)
    return outcome, [_state(x), _state(c), _state(s)]


def _params():
    for op, (stmt, backends) in OPERATIONS.items():
        for ctx, api, backend in itertools.product(CONTEXTS, APIS, backends):
            if api != "vmap" and backend != "numpy" or ctx == "helper_shared" and "x" in stmt:
                continue
            if api != "vmap" and op in ONCE_PER_CALL:
                continue
            for rows in (True,) if api == "signature" else (False, True):
                yield pytest.param(op, ctx, api, backend, rows,
                                   id=f"{op}-{ctx}-{api}-{backend}-{'rows' if rows else '1d'}")


@pytest.mark.parametrize("op, ctx, api, backend, rows", list(_params()))
def test_side_effects_match_the_reference(cases, op, ctx, api, backend, rows):
    if backend == "jax" and jnp is None:
        pytest.skip("jax is not installed")
    module, path = cases
    f = getattr(module, f"f_{op}_{ctx}")
    expected = _run(api, f, backend, rows, op, reference=True)
    try:
        got = _run(api, f, backend, rows, op, reference=False)
    except VectorizeError as e:
        # a refusal: located in the user's file, and nothing changed before it
        assert str(e).startswith(path + ":"), str(e)
        assert "^" in str(e), str(e)
        if api == "vmap":
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = _run(api, f, backend, rows, op, reference=False, fallback="warn")
    assert got[0] == expected[0], "what the call gave"
    assert got[1] == expected[1], "the arguments (x, c, shared) after the call"


# -- a tensor's 0-d items under vmap (PyTorch): `x += v` changes the caller's tensor --------


def bump(x):
    x += 1
    return x * 2


def bump_masked(x):
    if x > 1:
        x += 1
    return x * 2


def _bump_helper(v):
    v += 1


def bump_in_helper(x):
    _bump_helper(x)
    return x * 2


def bump_own(x):
    x = x.clone()
    x += 1
    return x * 2


def bump_new(x):
    x = x + 0
    x += 1
    return x * 2


def _loop(f, t):
    return torch.stack([f(t[i]) for i in range(len(t))])


@pytest.mark.parametrize("f", [bump, bump_masked, bump_in_helper])
def test_vmap_refuses_an_update_of_the_callers_tensor_items(f):
    t = torch.tensor([0.5, 1.5, 2.5])
    with pytest.raises(VectorizeError) as info:
        vmap(f)(t)
    assert str(info.value).startswith(__file__), str(info.value)
    if f is not bump_in_helper:
        assert "0-d view of the caller's tensor" in str(info.value)
    assert torch.equal(t, torch.tensor([0.5, 1.5, 2.5]))
    # (what the loop and torch.func.vmap do: they change the caller's tensor)
    looped, functorch = t.clone(), t.clone()
    _loop(f, looped)
    if f is bump:     # (torch.func.vmap has no data-dependent `if`)
        torch.func.vmap(f)(functorch)
        assert torch.equal(functorch, looped)
    assert not torch.equal(looped, t)


@pytest.mark.parametrize("f", [bump_own, bump_new])
def test_vmap_computes_where_the_item_is_the_functions_own(f):
    t = torch.tensor([0.5, 1.5, 2.5])
    expected = _loop(f, t.clone())
    assert torch.equal(vmap(f)(t), expected)
    assert torch.equal(t, torch.tensor([0.5, 1.5, 2.5]))


def test_vectorize_of_tensor_items_still_rebinds():
    # numpy.vectorize hands out numbers: `x += 1` makes a new number, the caller's array kept
    x = np.array([0.5, 1.5, 2.5])
    np.testing.assert_array_equal(vectorize(bump, fallback="error")(x), np.vectorize(bump)(x))
    np.testing.assert_array_equal(x, [0.5, 1.5, 2.5])


def test_a_shared_list_appended_to_per_example():
    # numpy.vectorize calls the function once more on the first example (to find the output
    # type): len(x) + 1 appends; the warned fallback gives the same list
    def keep(x, seen):
        seen.append(x)
        return x * 2

    x = np.array([0.5, 1.5, 2.5])
    seen_reference, seen = [], []
    expected = np.vectorize(keep, excluded={1})(x, seen_reference)
    assert len(seen_reference) == 4
    with pytest.warns(UserWarning):
        got = vectorize(keep, excluded={1})(x, seen)
    np.testing.assert_array_equal(got, expected)
    assert seen == seen_reference


# -- a list passed to vmap unmapped, changed per example by a helper ----------------------------

def _remember(seen):
    seen.append(1)


def remember_in_helper(x, seen):
    _remember(seen)
    return x * 2


def remember_own(x, seen):
    seen = list(seen)
    seen.append(1)
    return x * 2 + len(seen)


def test_vmap_refuses_a_helper_changing_an_unmapped_list():
    # vmap rebuilds the list it does not map: the batch would append to a copy, the loop
    # appends to the caller's list once per example
    x, seen, looped = np.array([0.5, 1.5, 2.5]), [], []
    for i in range(len(x)):
        remember_in_helper(x[i], looped)
    assert looped == [1, 1, 1]
    with pytest.raises(VectorizeError, match="`_remember` changes its argument `seen`") as info:
        vmap(remember_in_helper, in_axes=(0, None))(x, seen)
    assert str(info.value).startswith(__file__), str(info.value)
    assert seen == []


def test_the_functions_own_list_still_computes():
    x, seen = np.array([0.5, 1.5, 2.5]), [7]
    expected = np.vectorize(remember_own, excluded={1})(x, seen)
    np.testing.assert_array_equal(
        vectorize(remember_own, excluded={1}, fallback="error")(x, seen), expected)
    assert seen == [7]
