"""Per-example loops under the JAX backend (`vectorize/backends/jax/loops.py`).

Two layers:

- the CST lowering alone, on hand-written functions in the shapes the passes generate
  (``while jnp.any(active):``, the rotated ``while True: ... if not jnp.any(active): break``,
  ``for k in range(n): ... if not jnp.any(active): break``, Python loops with a shared trip
  count): the lowered function runs under ``jax.jit`` (x64) and must equal the same text
  run by NumPy as Python loops, in values and dtype, at N = 0, 1, 5 and 1e4;
- the loop corpus (`tests/loop_corpus.py`) under ``backend="jax"`` against the per-example
  loop: 0 mismatches, 0 crashes; each refusal is a located `VectorizeError`, and the refused
  functions are listed (``JAX_REFUSED``), so a new refusal fails the test.
"""

from __future__ import annotations

import ast
import math
import re
import subprocess
import sys
import textwrap

import libcst as cst
import numpy as np
import pytest

from vectorize.errors import Unsupported

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

from vectorize.backends.jax.loops import lower_loops, promote_carry  # noqa: E402

SIZES = (0, 1, 5, 10_000)
FLOAT_RTOL = 1e-13


def lowered(source: str) -> str:
    func = cst.parse_statement(textwrap.dedent(source))
    return cst.Module([lower_loops(func)]).code


def run_both(source: str, *args):
    """(the lowered text's result under jax.jit with x64, the unlowered text's result run by
    NumPy as Python loops)."""
    source = textwrap.dedent(source)
    name = re.search(r"def (\w+)", source).group(1)
    text = lowered(source)
    namespace = {"jnp": jnp, "lax": lax, "promote_carry": promote_carry, "math": math}
    exec(compile(text, "<lowered>", "exec"), namespace)
    with jax.enable_x64(True):
        got = jax.jit(namespace[name])(*args)
        got = jax.tree.map(np.asarray, got)
    reference_ns = {"jnp": np, "math": math}
    with np.errstate(all="ignore"):
        exec(compile(source, "<numpy>", "exec"), reference_ns)
        want = reference_ns[name](*args)
    return text, got, want


def assert_same(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            assert_same(g, w)
        return
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape
    if got.dtype.kind == "f":
        # XLA contracts `a * b + c` into one rounding (fma): the JAX backend's documented
        # float tolerance
        np.testing.assert_allclose(got, want, rtol=FLOAT_RTOL, atol=0)
    else:
        np.testing.assert_array_equal(got, want)


COLLATZ = """
def collatz(n):
    active = n > 1
    steps = jnp.full(len(n), 0, dtype=jnp.int64)
    while jnp.any(active):
        active_if = active
        cond = n % 2 == 0
        n_if = jnp.where(cond, n // 2, 3 * n + 1)
        active_if = n_if > 1
        n = jnp.where(active, n_if, n)
        steps = steps + active
        active = active & active_if
    return steps
"""

ESCAPE = """
def escape(cr, ci):
    zr = cr
    zi = ci
    active = jnp.full(len(cr), True, dtype=jnp.bool_)
    count = jnp.full(len(cr), 0, dtype=jnp.int64)
    while True:
        zr_sq = zr * zr
        zi_sq = zi * zi
        active = active & ((zr_sq + zi_sq <= 4.0) & (count < 50))
        if not jnp.any(active):
            break
        zr_if, zi_if = zr_sq - zi_sq + cr, 2.0 * zr * zi + ci
        zi = jnp.where(active, zi_if, zi)
        zr = jnp.where(active, zr_if, zr)
        count = count + active
    return count
"""

NEWTON = """
def newton(x):
    y = x + 1.0
    result = (0.0, 0,)
    active = jnp.full(len(x), True, dtype=jnp.bool_)
    returned = jnp.full(len(x), False, dtype=jnp.bool_)
    for k in range(60):
        active_if_2 = active
        y_next = 0.5 * (y + x / y)
        cond_2 = abs(y_next - y) <= 1e-12 * y_next
        active_if_2 = jnp.where(cond_2, False, active_if_2)
        result = (jnp.where(active & cond_2, y_next, result[0]),
                  jnp.where(active & cond_2, k, result[1]))
        returned = jnp.where(active & cond_2, True, returned)
        y = jnp.where(active, jnp.where(cond_2, y, y_next), y)
        active = active & active_if_2
        if not jnp.any(active):
            break
    return (jnp.where(returned, result[0], y), jnp.where(returned, result[1], -1))
"""

# the loop variable is read after the loop: each lane keeps the `i` of its last pass
LAST_INDEX = """
def last_index(x):
    i = jnp.full(len(x), 0, dtype=jnp.int64)
    active = jnp.full(len(x), True, dtype=jnp.bool_)
    for i_2 in range(3, 40, 3):
        i = jnp.where(active, i_2, i)
        active = active & ~(x * i_2 > 20.0)
        if not jnp.any(active):
            break
    return i
"""

# a carry that starts as a Python int and becomes a float array in the loop
INT_TO_FLOAT_FORI = """
def int_to_float(x):
    s = 0
    for k in range(40):
        s = s + x * k
    return s
"""

INT_TO_FLOAT_WHILE = """
def int_to_float_while(x):
    s = 0
    k = jnp.full(len(x), 0, dtype=jnp.int64)
    active = k < 7
    while jnp.any(active):
        s = jnp.where(active, s + x * 0.5, s)
        k = k + active
        active = active & (k < jnp.abs(x))
    return s
"""

NESTED = """
def nested(n, x):
    total = jnp.full(len(n), 0.0, dtype=jnp.float64)
    active = n > 0
    while jnp.any(active):
        m = n
        active_2 = active & (m > 0)
        while jnp.any(active_2):
            total = jnp.where(active_2, total + x * m, total)
            m = jnp.where(active_2, m - 1, m)
            active_2 = active_2 & (m > 0)
        n = jnp.where(active, n - 1, n)
        active = active & (n > 0)
    return total
"""

SMALL_FOR = """
def small_for(x):
    acc = 0.0
    for c in (1.0, -2.0, 0.5):
        acc = acc * x + c
    for j in range(4):
        acc = acc + x * j
    return acc
"""

# user names that the lowering would like for itself
CLASHES = """
def clashes(x, cond, body, carry):
    active = x < cond
    while jnp.any(active):
        x = jnp.where(active, x + body + carry, x)
        active = active & (x < cond)
    return x
"""


def floats(n, lo=-3.0, hi=3.0, seed=0):
    return np.random.default_rng(seed).uniform(lo, hi, n)


@pytest.mark.parametrize("n", SIZES)
def test_masked_while_becomes_while_loop(n):
    x = np.random.default_rng(n).integers(-5, 3000, n)
    text, got, want = run_both(COLLATZ, x)
    assert "cond_2, body, promote_carry(body, (active, n, steps)))" in text
    assert "while" not in text.replace("lax.while_loop", "")
    assert_same(got, want)


@pytest.mark.parametrize("n", SIZES)
def test_rotated_while_true_becomes_while_loop(n):
    text, got, want = run_both(ESCAPE, floats(n, -2.5, 1.5, 1), floats(n, -1.5, 1.5, 2))
    # the part before the exit runs once before the loop and at the end of each pass; the
    # values it shares with the body are made again at the start of the pass, not carried
    assert text.count("zr_sq = zr * zr") == 3
    assert "active, count, zi, zr = carry" in text
    assert "return jnp.any(active)" in text
    assert_same(got, want)


# a head that is not safe to run twice (it counts): the body is the tail, then the head
COUNTED = """
def counted(x):
    k = jnp.full(len(x), 0, dtype=jnp.int64)
    active = jnp.full(len(x), True, dtype=jnp.bool_)
    while True:
        k = k + active
        active = active & (k < x)
        if not jnp.any(active):
            break
        x = jnp.where(active, x - 0.5, x)
    return k
"""


@pytest.mark.parametrize("n", SIZES[:3])
def test_rotated_head_that_counts_runs_once_per_pass(n):
    text, got, want = run_both(COUNTED, floats(n, -1, 6, 12))
    assert text.count("k = k + active") == 2
    assert_same(got, want)


@pytest.mark.parametrize("n", SIZES)
def test_for_with_per_example_break_and_tuple_carry(n):
    x = np.abs(floats(n, 0, 1e6, 3))
    if n:
        x[0] = 0.0
    text, got, want = run_both(NEWTON, x)
    assert "lax.while_loop" in text and "going = jnp.any(active)" in text
    assert "for " not in text
    assert_same(got, want)


@pytest.mark.parametrize("n", SIZES)
def test_for_with_break_keeps_the_loop_variable_per_lane(n):
    text, got, want = run_both(LAST_INDEX, floats(n, 0.1, 4.0, 4))
    assert "i_2 = i_2 + 3" in text
    assert_same(got, want)


@pytest.mark.parametrize("n", SIZES)
def test_int_carry_promoted_to_float_fori(n):
    text, got, want = run_both(INT_TO_FLOAT_FORI, floats(n, seed=5))
    assert "lax.fori_loop(0, 40, body, promote_carry(body, (s,), 0))" in text
    assert_same(got, want)


@pytest.mark.parametrize("n", SIZES[1:])
def test_int_carry_promoted_to_float_while(n):
    _, got, want = run_both(INT_TO_FLOAT_WHILE, floats(n, -20, 20, 6))
    assert_same(got, want)


def test_int_carry_that_no_lane_changes_has_the_type_the_body_makes():
    """With no lane entering, Python keeps ``s = 0``; the lowered carry has the type the
    body would make (float64 per lane), as the NumPy backend's join of the carry does."""
    _, got, want = run_both(INT_TO_FLOAT_WHILE, floats(0))
    assert want == 0 and got.dtype == np.float64 and got.shape == (0,)


@pytest.mark.parametrize("n", SIZES)
def test_nested_masked_loops(n):
    rng = np.random.default_rng(7)
    text, got, want = run_both(NESTED, rng.integers(-2, 12, n), floats(n, seed=8))
    assert text.count("lax.while_loop") == 2
    assert_same(got, want)


def test_small_shared_trip_counts_stay_python_loops():
    text, got, want = run_both(SMALL_FOR, floats(5, seed=9))
    assert "for c in (1.0, -2.0, 0.5):" in text and "for j in range(4):" in text
    assert "lax" not in text
    assert_same(got, want)


def test_python_list_index_keeps_the_loop_unrolled():
    source = """
    def table(x):
        acc = 0.0
        for i in range(len(COEFFS)):
            acc = acc * x + COEFFS[i]
        return acc
    """
    text = lowered(source.replace("len(COEFFS)", "40"))
    assert "for i in range(40):" in text and "lax" not in text
    local = source.replace("acc = 0.0", "acc = 0.0\n        table = [1.0, 2.0] * 20")
    text = lowered(local.replace("len(COEFFS)", "40").replace("COEFFS[i]", "table[i]"))
    assert "for i in range(40):" in text and "lax" not in text
    # an index into the function's own array is traced: fori_loop
    own = source.replace("len(COEFFS)", "40").replace("def table(x):", "def table(x, v):")
    text = lowered(own.replace("COEFFS[i]", "v[:, i]"))
    assert "lax.fori_loop(0, 40, body" in text


def test_fresh_names_never_shadow_the_users():
    x = floats(5, 0, 1, 10)
    text, got, want = run_both(CLASHES, x, 2.0, 0.25, 0.5)
    assert "def cond_2(carry_2):" in text and "def body_2(carry_2):" in text
    assert_same(got, want)


def test_lowered_text_passes_ruff():
    text = "import jax.numpy as jnp\nfrom jax import lax\n\n\n" + "\n\n".join(
        lowered(s).strip() + "\n" for s in (COLLATZ, ESCAPE, NEWTON, NESTED, INT_TO_FLOAT_FORI))
    text = text.replace("\n\n\ndef", "\n\n\ndef")
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--stdin-filename", "x.py",
                           "--select", "F,E,W", "--ignore", "E501,F821", "-"],
                          input=text.encode(), capture_output=True)
    assert done.returncode == 0, done.stdout.decode() + text


OVER_TABLE = """
def over_table(x):
    active = x > 0
    for c in (0.5, 3.0, 0.25, 0.1):
        x = jnp.where(active, x * c, x)
        active = active & (x > 1)
        if not jnp.any(active):
            break
    return x
"""


@pytest.mark.parametrize("n", SIZES[:3])
def test_sequence_loop_with_a_per_example_break_runs_every_pass_masked(n):
    text, got, want = run_both(OVER_TABLE, floats(n, -1, 40, 11))
    assert "for c in (0.5, 3.0, 0.25, 0.1):" in text and "break" not in text
    assert_same(got, want)


@pytest.mark.parametrize("source, words", [
    ("""
    def exit_first(x):
        active = x > 0
        for c in COEFFS:
            if not jnp.any(active):
                break
            x = jnp.where(active, x * c, x)
            active = active & (x > 1)
        return x
    """, "not its last statement"),
    ("""
    def two_exits(x):
        active = x > 0
        while True:
            if not jnp.any(active):
                break
            x = jnp.where(active, x - 1, x)
            if not jnp.any(x > 3):
                break
        return x
    """, "more than one exit"),
    ("""
    def unbound(x):
        active = x > 0
        while jnp.any(active):
            y = jnp.where(active, x, y)
            active = active & (y > 3)
        return y
    """, "`y` is carried"),
])
def test_loops_it_cannot_lower_are_refused_at_the_loop(source, words):
    func = cst.parse_statement(textwrap.dedent(source))
    with pytest.raises(Unsupported) as info:
        lower_loops(func, locate=lambda loop: loop)
    assert words in info.value.message
    assert isinstance(info.value.node, (cst.For, cst.While))


def test_promote_carry_widens_to_what_the_body_makes():
    with jax.enable_x64(True):
        carry = promote_carry(lambda c: (c[0] + jnp.ones(3) * 0.5, c[1]), (0, jnp.int32(1)))
        assert carry[0].dtype == jnp.float64 and carry[0].shape == (3,)
        assert carry[1].dtype == jnp.int32
        same = (jnp.zeros(2), jnp.zeros(2, dtype=jnp.int64))
        assert promote_carry(lambda c: c, same) is same


# ------------------------------------------------------------- the loop corpus, backend="jax"
import loop_corpus as L  # noqa: E402
from differential import (  # noqa: E402
    assert_lanes_equal,
    assert_like_numpy_vectorize,
    numpy_vectorize_outcome,
)
from test_loops import CASES, edge_inputs, run_lanes  # noqa: E402

from vectorize import VectorizeError, vectorize, vmap  # noqa: E402

# corpus functions the JAX backend refuses, with the words its located reason must have
JAX_REFUSED: dict[str, str] = {}
# XLA's algebraic simplifier folds `0.0 + y` into `y` (a carry that starts at a constant 0.0):
# where y is -0.0 the sum is -0.0, Python's +0.0 (docs/jax.md, divergences)
SIGNED_ZERO_FOLDED = {"int_to_float_carry"}


def jax_vectorized(case, variant):
    f = case.func(variant)
    if case.mode == "vmap":
        return vmap(f, in_axes=(0,) * len(case.elements), backend="jax")
    n = len(case.elements)
    excluded = set(range(n, n + len(case.unbatched))) or None
    return vectorize(f, fallback="error", excluded=excluded, backend="jax")


def corpus_params():
    """Every corpus function, once: the JAX backend has no compaction, so a loop marked
    ``# vectorize: compact`` generates the code of its ``select`` twin (checked by
    `test_compact_variants_generate_the_select_code`)."""
    return [pytest.param(case, variant, id=f"{case.name}-{variant}" if variant else case.name)
            for case in CASES for variant in case.variants
            if not case.open_bugs and variant != "compact"]


def check_jax(case, variant, batched, unbatched):
    f = case.func(variant)
    vf = jax_vectorized(case, variant)
    name = f.__name__
    if case.mode == "vectorize":
        n = len(batched)
        reference, expected = numpy_vectorize_outcome(
            f, *batched, *unbatched, excluded=tuple(range(n, n + len(unbatched))))
        if expected is not None:
            with pytest.raises(type(expected), match=re.escape(str(expected))):
                vf(*batched, *unbatched)
            return
        if reference is not None:   # (its types: the first example's)
            got = vf(*batched, *unbatched)
            assert_like_numpy_vectorize(got, reference, what=f"{name}: ",
                                        signed_zeros=name not in SIGNED_ZERO_FOLDED)
            return
    lanes, raised, _ = run_lanes(f, batched, unbatched)
    got = vf(*batched, *unbatched)
    assert not isinstance(got, jax.Array) and (
        isinstance(got, tuple) or isinstance(got, (np.ndarray, np.generic))), type(got)
    shape = (len(batched[0]),)
    if (case.int_when_no_lane_enters and np.asarray(got).dtype.kind == "f"
            and all(isinstance(r, (int, np.integer)) for r in lanes)):
        lanes = [float(r) for r in lanes]
    signed = name not in SIGNED_ZERO_FOLDED
    if isinstance(got, tuple):
        for k, g in enumerate(got):
            part = [None if r is None else r[k] for r in lanes]
            assert_lanes_equal(g, part, shape, raised, what=f"{name} output {k}: ",
                               signed_zeros=signed)
    else:
        assert_lanes_equal(got, lanes, shape, raised, what=f"{name}: ", signed_zeros=signed)


@pytest.mark.parametrize(("case", "variant"), corpus_params())
def test_loop_corpus_under_jax(case, variant):
    name = case.func(variant).__name__
    batched, unbatched = edge_inputs(case)
    if name in JAX_REFUSED:
        with pytest.raises(VectorizeError, match=JAX_REFUSED[name]) as info:
            check_jax(case, variant, batched, unbatched)
        assert "loop_corpus.py:" in str(info.value)
        return
    check_jax(case, variant, batched, unbatched)
    # the edges again, shuffled and repeated: the same shape (no new compile), other lanes
    # together (a loop runs until the slowest lane of the batch is done)
    rng = np.random.default_rng(len(name))
    picks = rng.integers(0, len(batched[0]), len(batched[0]))
    check_jax(case, variant, [a[picks] for a in batched], unbatched)


@pytest.mark.parametrize("case", [c for c in CASES if "compact" in c.variants
                                  and not c.open_bugs][:6], ids=lambda c: c.name)
def test_compact_variants_generate_the_select_code(case):
    batched, unbatched = edge_inputs(case)
    texts = [jax_vectorized(case, v).source(*batched, *unbatched) for v in ("select",
                                                                               "compact")]
    bodies = []
    for text in texts:
        func = ast.parse(text).body[-1]
        if ast.get_docstring(func) is not None:
            func.body = func.body[1:]
        func.name = "f"
        bodies.append(ast.dump(func))
    assert bodies[0] == bodies[1]


@pytest.mark.parametrize("name", ["escape_while_select", "collatz_steps_select",
                                  "first_power_above_select", "settle_select"])
@pytest.mark.parametrize("n", [0, 10_000])
def test_empty_and_large_batches(name, n):
    """N = 0 (no lane enters: the lowered loop runs no pass) and a large batch, against the
    per-example loop."""
    f = getattr(L, name)
    rng = np.random.default_rng(n)
    if name.startswith("collatz"):
        args = [rng.integers(-5, 3000, n)]
    elif name.startswith("escape"):
        args = [rng.uniform(-2.5, 1.5, n), rng.uniform(-1.5, 1.5, n)]
    else:
        args = [rng.uniform(0.5, 150.0, n)]
    got = vectorize(f, fallback="error", backend="jax")(*args)
    want = [f(*(a[i] for a in args)) for i in range(n)]
    if isinstance(got, tuple):
        for k, g in enumerate(got):
            assert_lanes_equal(g, [w[k] for w in want], (n,), [])
    else:
        assert_lanes_equal(got, want, (n,), [])


def test_gradient_through_a_fori_loop_equals_per_example_gradients():
    """A shared trip count above `UNROLL_MAX` is a `fori_loop` with static bounds, which
    `jax.grad` differentiates in reverse mode."""
    f = vectorize(L.newton_sqrt_fixed, backend="jax")
    with jax.enable_x64(True):
        x = jnp.asarray([2.0, 9.0, 0.25, 100.0, 1e4])
        assert "lax.fori_loop(0, 40," in f.source(x)
        grad = jax.grad(lambda v: f(v).sum())(x)
    np.testing.assert_allclose(np.asarray(grad), 0.5 / np.sqrt(np.asarray(x)), rtol=1e-12)


def test_while_loop_has_forward_mode_gradients_and_a_clear_reverse_mode_error():
    """`lax.while_loop` (a loop whose examples stop at different times) supports `jax.jvp`
    / `jax.jacfwd`; reverse mode is JAX's documented refusal (docs/jax.md)."""
    f = vectorize(L.newton_sqrt_tol_select, backend="jax")
    with jax.enable_x64(True):
        x = jnp.asarray([2.0, 9.0, 0.25, 100.0])
        assert "lax.while_loop(" in f.source(x)
        value, tangent = jax.jvp(f, (x,), (jnp.ones_like(x),))
        np.testing.assert_allclose(np.asarray(value), np.sqrt(np.asarray(x)), rtol=1e-12)
        np.testing.assert_allclose(np.asarray(tangent), 0.5 / np.sqrt(np.asarray(x)),
                                   rtol=1e-9)
        with pytest.raises(ValueError, match="Reverse-mode differentiation does not work"):
            jax.grad(lambda v: f(v).sum())(x)


def horner_by_index(x, coeffs):
    acc = 0.0
    for i in range(len(coeffs)):
        acc = acc * x + coeffs[i]
    return acc


def test_loop_indexing_a_python_list_argument_stays_a_python_loop():
    """``coeffs`` is a Python list (excluded): indexing it needs a Python int, so the loop
    (20 passes, above `UNROLL_MAX`) is unrolled rather than a `fori_loop`."""
    coeffs = [0.1 * k - 0.7 for k in range(20)]
    f = vectorize(horner_by_index, excluded={1}, backend="jax", fallback="error")
    x = np.linspace(-1.5, 1.5, 7)
    assert "for i in range(len(coeffs)):" in f.source(x, coeffs)
    assert_lanes_equal(f(x, coeffs), [horner_by_index(float(v), coeffs) for v in x], (7,), [])
    array = np.asarray(coeffs)     # an array argument: its index may be traced
    assert "lax.fori_loop(" in vectorize(horner_by_index, excluded={1}, backend="jax").source(
        x, array)


def counter_test_with_break(x):
    acc = 0.0
    for i in range(5):
        if i != 1:
            acc += x
        if acc > 3:
            break
    return acc


@pytest.mark.parametrize("n", [0, 1, 5, 1000])
def test_a_python_if_on_the_counter_of_a_loop_left_early(n):
    """`if i != 1:` in a `for` loop left by a per-example `break` (the fuzzers' crash: the
    counter of a `lax.while_loop` is traced): the loop runs every pass under its mask."""
    x = np.random.default_rng(n).uniform(-1, 5, n)
    expected = np.vectorize(counter_test_with_break, otypes=[float])(x)
    got = vmap(counter_test_with_break, backend="jax")(x)
    np.testing.assert_array_equal(np.asarray(got), expected)
    got = vectorize(counter_test_with_break, backend="jax")(x)
    np.testing.assert_array_equal(np.asarray(got), expected)


def test_checks_inside_loops_under_vmap_run_jitted_and_raise_as_written(tmp_path):
    """The checks a `lax` loop body carries (`_Lowering._carry_checks`: the failed check's
    number and its exception's values, raised after the loop) under ``vmap(backend="jax")``:
    the jitted twin makes the check after the loop a ``checkify`` check, so the function
    stays jitted (``Compiled.level`` 0, never op by op), equals the per-example loop, and
    raises the per-example loop's exception where one example fails."""
    from test_cli_backends import CHECKED_CALLS, CHECKED_LOOPS, _per_example, load

    from vectorize import vmap
    path = tmp_path / "checked_loops.py"
    path.write_text(CHECKED_LOOPS.replace("@vmap\n", ""))
    namespace = vars(load(path))
    for name, fine, failing in CHECKED_CALLS:
        mapped = vmap(namespace[name], backend="jax")
        for n in (5,):      # (sizes: the written file's test, `test_cli_backends`)
            args = [np.resize(np.asarray(a), n) for a in fine]
            want, _ = _per_example(namespace[name], args)
            got = mapped(*args)
            assert got.dtype == want.dtype, (name, got.dtype, want.dtype)
            np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=name)
        fast = mapped._fast or mapped._fast_numpy
        assert fast.entry.spec.function.level == 0, name
        if failing is not None:
            args = [np.asarray(a) for a in failing]
            _, want = _per_example(namespace[name], args)
            with pytest.raises(type(want)) as raised:
                mapped(*args)
            if type(want) is not IndexError:
                assert str(raised.value) == str(want), name
