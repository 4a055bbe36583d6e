"""Unsupported constructs: located `VectorizeError`s under ``fallback="error"``, faithful
per-example fallbacks under ``"warn"`` (one `VectorizeFallbackWarning` per specialization) and
``"loop"`` (silent), and ``.source()`` that shows the fallback.

Every expected location is computed from the function's own source with
`inspect.getsourcelines` (never hard-coded): the case names a substring that identifies the
offending line and a substring whose first occurrence on that line is where the caret must be.
Per-example results are compared with `differential.loop_reference`.
"""

from __future__ import annotations

import functools
import inspect
import math
import random
import re
import warnings
from dataclasses import dataclass

import numpy as np
import pytest
from differential import assert_lanes_equal, assert_like_numpy_vectorize, loop_reference

from vectorize import VectorizeError, VectorizeFallbackWarning, vectorize, vmap

# --------------------------------------------------------------------------------------------
# The per-example functions, one per unsupported construct.

COUNTER = 0.0


def uses_try(x):
    # (a `try` around arithmetic with handlers, or with `finally`, is vectorized; a
    # `finally` that returns, swallowing any exception, is refused)
    y = x * 2
    try:
        y = y + 1
    finally:
        return y - 1  # noqa: B012 -- the construct refused


def uses_global(x):
    global COUNTER
    COUNTER = x
    return x + 1


def _make_nonlocal():
    total = 0.0

    def uses_nonlocal(x):
        nonlocal total
        total = x
        return x * 3

    return uses_nonlocal


uses_nonlocal = _make_nonlocal()


def uses_print(x):
    y = x + 1
    print(y)
    return y


LOG: list = []


def uses_append(x):
    LOG.append(x)
    return x - 1


def item_assign(acc, x):
    acc[0] = x
    return x * 2


class Box:
    value = 0.0


def attr_assign(box, x):
    box.value = x
    return x + 0.5


def unknown_call(x):
    y = x + 1
    return random.gauss(y, 1.0)


def raise_batched(x):
    if x < 0:
        raise ValueError("negative input")
    return x * 2


def raise_every_example(x):
    y = x * 2
    raise ValueError(y)


def one_branch(x):
    if x > 0:
        y = (x * 2, x)     # (a number bound on one path is checked at run time instead)
    return y[0]


def recursive(x):
    # (a self-call in a conditional expression is not written out: see test_constructs27)
    return recursive(x - 1) + 1.0 if x > 0 else x


def generator(x):
    yield x + 1


def uses_lambda(x):
    # (a closure only called, also under another name or handed to a helper, is inlined:
    # tests/test_constructs.py, tests/test_constructs26.py; one kept in a list is not)
    scales = [lambda t: t * x]
    return scales[0](2.0)


def uses_comprehension(x):
    # (one over a fixed range, filtered or not, is written out: tests/test_refusals28.py)
    return [x * k for k in range(int(abs(x)) + 1)][-1]


def uses_del(x):
    y = x + 1
    del y
    return x


def uses_import(x):
    if x > 0:
        import cmath  # (an import of the body's top level is read as a global)
        return cmath.sqrt(x).real
    return x


def uses_with(x):
    with x:
        y = x + 1
    return y


def batched_while(x):
    while x > 1:
        x = x / 2
    return x


def _helper_with_try(v):
    try:
        v = v + 1
    finally:
        return v  # noqa: B012 -- the construct refused


def calls_bad_helper(x):
    y = x * 2
    return _helper_with_try(y)


# --------------------------------------------------------------------------------------------
# Cases

POSITIVE = np.array([0.5, 1.0, 2.5, 4.0])
INTS = np.array([1, 2, 3, 7])


@dataclass
class Case:
    id: str
    func: object
    line: str                 # identifies the offending source line
    col: str                  # first occurrence on that line = the caret column
    box: object = None        # an unbatched first argument (excluded / in_axes=None)
    values: bool = True       # per-example results can be compared (not generator objects)
    int_ok: bool = True       # the per-example function also runs on integer examples

    def args(self, x):
        return (x,) if self.box is None else (self.box(), x)

    @property
    def excluded(self):
        return () if self.box is None else (0,)

    def vectorized(self, fallback):
        return vectorize(self.func, fallback=fallback, excluded=set(self.excluded) or None)

    def vmapped(self, fallback):
        in_axes = 0 if self.box is None else (None, 0)
        return vmap(self.func, in_axes=in_axes, fallback=fallback)


CASES = [
    Case("try", uses_try, "try:", "try"),
    Case("global", uses_global, "global COUNTER", "global"),
    Case("nonlocal", uses_nonlocal, "nonlocal total", "nonlocal"),
    Case("print", uses_print, "print(y)", "print"),
    Case("side-effect-method", uses_append, "LOG.append(x)", "LOG"),
    Case("item-assignment", item_assign, "acc[0] = x", "acc", box=lambda: [0.0]),
    Case("attribute-assignment", attr_assign, "box.value = x", "box", box=Box),
    Case("unknown-function", unknown_call, "random.gauss(y, 1.0)", "random.gauss"),
    Case("raise-per-example-values", raise_every_example, "raise ValueError(y)",
         "ValueError"),
    Case("one-branch-variable", one_branch, "    return y", "y"),
    Case("recursion", recursive, "return recursive(x - 1)", "recursive"),
    Case("yield", generator, "yield x + 1", "yield", values=False),
    Case("lambda", uses_lambda, "scales = [lambda", "lambda"),
    Case("comprehension", uses_comprehension, "[x * k for k in range(int(", "[x * k"),
    Case("del", uses_del, "del y", "del"),
    Case("import", uses_import, "import cmath", "import"),
    Case("with", uses_with, "with x:", "x"),
]
# the error inside a helper must point into the helper, not at the call
HELPER_CASE = Case("error-in-helper", calls_bad_helper, "try:", "try")

NO_SUGGESTION: dict[str, str] = {}   # every error has a suggestion now


def _case_params(cases, xfails=None):
    out = []
    for case in cases:
        marks = []
        if xfails and case.id in xfails:
            marks.append(pytest.mark.xfail(strict=True, reason=xfails[case.id]))
        out.append(pytest.param(case, id=case.id, marks=marks))
    return out


def expected_location(func, line_marker, col_marker):
    """(file name, 1-based line, 1-based column, the file's source line) of the node."""
    lines, start = inspect.getsourcelines(func)
    hits = [i for i, text in enumerate(lines) if line_marker in text]
    assert len(hits) == 1, f"marker {line_marker!r} must identify one line of {func.__name__}"
    text = lines[hits[0]]
    col = text.index(col_marker, text.index(line_marker.strip()))
    return inspect.getsourcefile(func), start + hits[0], col + 1, text.rstrip("\n")


def assert_located(message, func, line_marker, col_marker):
    filename, line, col, source_line = expected_location(func, line_marker, col_marker)
    assert f"{filename}:{line}:{col}" in message, (
        f"expected location {filename}:{line}:{col} in:\n{message}")
    shown = [i for i, text in enumerate(message.splitlines())
             if text.rstrip().endswith(source_line.rstrip()) and source_line.strip()]
    assert shown, f"the source line {source_line.strip()!r} is not shown in:\n{message}"
    rows = message.splitlines()
    display = rows[shown[0]]
    indent = len(display.rstrip()) - len(source_line.rstrip())
    assert shown[0] + 1 < len(rows), f"no caret line after the source line:\n{message}"
    caret_row = rows[shown[0] + 1]
    assert caret_row.strip() == "^", f"no caret under the source line:\n{message}"
    assert caret_row.index("^") == indent + col - 1, (
        f"caret at {caret_row.index('^') - indent + 1}, expected column {col}:\n{message}")


def assert_suggests(message):
    match = re.search(r"suggestion:\s*(\S.*)", message, re.IGNORECASE)
    assert match and len(match.group(1).strip()) > 10, f"no suggestion in:\n{message}"


def _raise_error(callable_, *args):
    with pytest.raises(VectorizeError) as info:
        callable_(*args)
    assert type(info.value) is VectorizeError
    assert isinstance(info.value, ValueError)
    return str(info.value)


# --------------------------------------------------------------------------------------------
# fallback="error": VectorizeError, located, with the source line, a caret and a suggestion


@pytest.mark.parametrize("case", _case_params(CASES))
def test_error_is_located(case):
    message = _raise_error(case.vectorized("error"), *case.args(POSITIVE))
    assert_located(message, case.func, case.line, case.col)


@pytest.mark.parametrize("case", _case_params(CASES, NO_SUGGESTION))
def test_error_has_suggestion(case):
    message = _raise_error(case.vectorized("error"), *case.args(POSITIVE))
    assert_suggests(message)


@pytest.mark.parametrize("case", _case_params(CASES))
def test_vmap_error_is_located(case):
    message = _raise_error(case.vmapped("error"), *case.args(POSITIVE))
    assert_located(message, case.func, case.line, case.col)


@pytest.mark.parametrize("case", _case_params(CASES[:4] + CASES[7:9]))
def test_source_raises_the_same_error(case):
    vf = case.vectorized("error")
    message = _raise_error(vf.source, *case.args(POSITIVE))
    assert_located(message, case.func, case.line, case.col)


def test_error_in_helper_points_into_the_helper():
    message = _raise_error(HELPER_CASE.vectorized("error"), POSITIVE)
    assert_located(message, _helper_with_try, "try:", "try")
    assert_suggests(message)


def test_error_for_integer_batches_too():
    message = _raise_error(vectorize(uses_try, fallback="error"), INTS)
    assert_located(message, uses_try, "try:", "try")


def test_vectorize_error_is_a_value_error():
    assert issubclass(VectorizeError, ValueError)


# Functions without source: no location to point at, but a VectorizeError that names the
# function and says what to do, never another exception type.

_NS: dict = {}
exec("def made_by_exec(x):\n    if x > 1:\n        return x - 1\n    return x * 2\n", _NS)
made_by_exec = _NS["made_by_exec"]

# (builtins the rules know, `abs`, `math.sin`, `pow`, are vectorized as the one-line
# function that calls them: `test_builtin_with_a_rule_is_vectorized`; `math.hypot` takes
# any number of arguments, so no such function is written for it)
NO_SOURCE = [
    pytest.param(made_by_exec, "made_by_exec", id="exec"),
    pytest.param(math.hypot, "hypot", id="builtin-math.hypot"),
    pytest.param(functools.partial(math.hypot, 2.0), "partial", id="partial-of-builtin"),
]


@pytest.mark.parametrize(("func", "name"), NO_SOURCE)
def test_function_without_source_error(func, name):
    message = _raise_error(vectorize(func, fallback="error"), POSITIVE)
    assert name in message
    assert_suggests(message)


# (vmap knows the number of arguments from the call: `math.hypot` is vectorized there;
# `math.ulp` has no rule)
@pytest.mark.parametrize(("func", "name"), [NO_SOURCE[0], pytest.param(
    math.ulp, "ulp", id="builtin-math.ulp")])
def test_vmap_function_without_source_error(func, name):
    message = _raise_error(vmap(func), POSITIVE)
    assert name in message
    assert_suggests(message)


def test_vmap_partial_of_builtin_error():
    message = _raise_error(vmap(functools.partial(math.ulp)), POSITIVE)
    assert "partial" in message or "ulp" in message
    assert_suggests(message)


@pytest.mark.parametrize("func", [abs, math.sin, functools.partial(pow, 2.0), math.floor],
                         ids=["abs", "math.sin", "partial-of-pow", "math.floor"])
def test_builtin_with_a_rule_is_vectorized(func):
    x = np.array([-1.5, 0.0, 2.25, -0.0, 3.0])
    for n in (0, 1, 5):
        got = vectorize(func, fallback="error")(x[:n])
        expected = np.vectorize(func, otypes=None if n else ["d"])(x[:n])
        assert got.shape == expected.shape and np.array_equal(got, expected)
        assert got.dtype == expected.dtype or n == 0


# A `while` whose condition differs per example: not supported when these tests were
# written, being added alongside. Either a located VectorizeError or exactly the per-example
# results; never anything else.

WHILE_INPUTS = [POSITIVE, np.array([-3.0, 0.0, 1.0, 1.5, 1e6, 1e300, np.nan, 5e-324]),
                np.array([], dtype=float), np.array([0, 1, 2, 9, 1000])]


@pytest.mark.parametrize("x", WHILE_INPUTS, ids=["positive", "edges", "empty", "ints"])
@pytest.mark.parametrize("entry", ["vectorize", "vmap"])
def test_batched_while_is_located_error_or_exact(x, entry):
    wrapped = (vectorize(batched_while, fallback="error") if entry == "vectorize"
               else vmap(batched_while))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = wrapped(x)
    except VectorizeError as exc:
        assert_located(str(exc), batched_while, "while x > 1:", "x > 1")
        assert_suggests(str(exc))
        return
    if entry == "vectorize" and x.size:
        # (numpy.vectorize's dtype: the first example's, an int for the ints' 0)
        assert_like_numpy_vectorize(got, np.vectorize(batched_while)(x))
        return
    lanes, shape, raised = loop_reference(batched_while, x)
    assert_lanes_equal(got, lanes, shape, raised)


@pytest.mark.parametrize(("func", "name"), NO_SOURCE)
def test_function_without_source_warns_and_loops(func, name):
    lanes, shape, raised = loop_reference(func, POSITIVE)
    vf = vectorize(func, fallback="warn")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = vf(POSITIVE)
        again = vf(POSITIVE)
    assert_lanes_equal(got, lanes, shape, raised)
    assert_lanes_equal(again, lanes, shape, raised)
    fallbacks = [w for w in caught if issubclass(w.category, VectorizeFallbackWarning)]
    assert len(fallbacks) == 1
    assert len(fallbacks) == len(caught)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_lanes_equal(vectorize(func, fallback="loop")(POSITIVE), lanes, shape, raised)
    assert "per example" in vf.source(POSITIVE).lower()


# --------------------------------------------------------------------------------------------
# fallback="warn" / "loop": the per-example results, one warning per specialization


def _per_example_exception(case, x):
    """The exception type the plain function raises on the first example, or None."""
    try:
        result = case.func(*case.args(x)[:-1], x[0])
        if inspect.isgenerator(result):
            next(result)
    except Exception as exc:  # noqa: BLE001 - we only need its type
        return type(exc)
    return None


def _check_results(case, got, x):
    lanes, shape, raised = loop_reference(case.func, *case.args(x), excluded=case.excluded)
    if case.values:
        assert_lanes_equal(got, lanes, shape, raised)
    else:
        assert np.shape(got) == shape
        assert all(inspect.isgenerator(g) for g in np.asarray(got).ravel())


def _run(callable_, case, x):
    """Call and check: the same results as the per-example loop, or the same exception."""
    expected_exc = _per_example_exception(case, x)
    if expected_exc is not None:
        with pytest.raises(expected_exc):
            callable_(*case.args(x))
        return
    random.seed(1234)
    got = callable_(*case.args(x))
    random.seed(1234)
    if case.id == "unknown-function" and isinstance(callable_, vectorize):
        # random draws: the whole function runs through numpy.vectorize itself, which calls
        # the first example once more to learn the output type (with NumPy scalars; its
        # loop then hands Python numbers, as `vectorize`'s reference does): its draws
        expected = np.vectorize(case.func, excluded=case.excluded)(*case.args(x))
        np.testing.assert_array_equal(got, expected)
        return
    _check_results(case, got, x)


@pytest.mark.parametrize("case", _case_params(CASES + [HELPER_CASE]))
def test_warn_runs_per_example_and_warns_once_per_specialization(case):
    vf = case.vectorized("warn")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _run(vf, case, POSITIVE)
        _run(vf, case, POSITIVE)
        assert len([w for w in caught if issubclass(w.category, VectorizeFallbackWarning)]) == 1
        if case.int_ok:
            _run(vf, case, INTS)
            _run(vf, case, INTS)
    fallbacks = [w for w in caught if issubclass(w.category, VectorizeFallbackWarning)]
    assert len(fallbacks) == len(vf._specs), [str(w.message) for w in fallbacks]
    assert len(fallbacks) == len(caught), [str(w.message) for w in caught]
    # the warning is attributed to the caller, and says what to do
    assert all(w.filename == __file__ for w in fallbacks)
    assert "fallback=" in str(fallbacks[0].message)


@pytest.mark.parametrize("case", _case_params(CASES + [HELPER_CASE]))
def test_loop_is_silent_and_per_example(case):
    vf = case.vectorized("loop")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _run(vf, case, POSITIVE)
        _run(vf, case, INTS)
    assert [str(w.message) for w in caught] == []


@pytest.mark.parametrize("case", _case_params(CASES + [HELPER_CASE]))
def test_source_shows_the_fallback(case):
    vf = case.vectorized("warn")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        src = vf.source(*case.args(POSITIVE))
    per_example = re.search(r"per[- ]example", src, re.IGNORECASE) is not None
    # a per-example loop written out around the untranslated call also shows it
    call = case.line.strip().split("(")[0].split()[-1]
    loop_shown = any(call in row and re.search(r"\bfor\b", row) for row in src.splitlines())
    assert per_example or loop_shown, src


def test_side_effects_of_the_fallback_happen_per_example():
    acc = [0.0]
    vf = vectorize(item_assign, fallback="loop", excluded={0})
    got = vf(acc, POSITIVE)
    np.testing.assert_array_equal(got, POSITIVE * 2)
    assert acc[0] == POSITIVE[-1]


def test_raise_under_a_per_example_condition_raises_like_the_function():
    x = np.array([1.0, -2.0, 3.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")         # vectorized: no fallback warning
        with pytest.raises(ValueError, match="negative input") as info:
            vectorize(raise_batched, fallback="warn")(x)
        valid = np.abs(x)
        np.testing.assert_array_equal(vectorize(raise_batched, fallback="warn")(valid),
                                      [raise_batched(a) for a in valid])
    assert not isinstance(info.value, VectorizeError)


VMAP_WARN = [c for c in CASES if c.id in ("try", "print", "unknown-function", "recursion")]


@pytest.mark.parametrize("case", _case_params(VMAP_WARN))
def test_vmap_loop_runs_per_example(case):
    vm = case.vmapped("loop")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _run(vm, case, POSITIVE)
    assert [str(w.message) for w in caught] == []


@pytest.mark.parametrize("case", _case_params(VMAP_WARN))
def test_vmap_warn_warns_once(case):
    vm = case.vmapped("warn")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _run(vm, case, POSITIVE)
        _run(vm, case, POSITIVE)
    fallbacks = [w for w in caught if issubclass(w.category, VectorizeFallbackWarning)]
    assert len(fallbacks) == 1


# --------------------------------------------------------------------------------------------
# Refusals speak the user's language: they name only the user's variables (never one the
# engine made up while lowering the code) and point at the user's line.

import builtins  # noqa: E402
import keyword  # noqa: E402

import refusal_corpus  # noqa: E402

_CODE_WORDS = set(keyword.kwlist) | set(dir(builtins)) | {"np", "numpy", "math"}


def _refusal_args(func):
    rng = np.random.default_rng(0)
    return [rng.random((4, 3)) if name == "v" else rng.random(4) * 3 - 1
            for name in inspect.signature(func).parameters]


@pytest.mark.parametrize("func", list(refusal_corpus.LINE), ids=lambda f: f.__name__)
def test_refusals_speak_the_users_language(func):
    message = _raise_error(vmap(func), *_refusal_args(func))
    source = inspect.getsource(func)
    named = set(re.findall(r"`([A-Za-z_]\w*)", message))
    foreign = named - set(re.findall(r"[A-Za-z_]\w*", source)) - _CODE_WORDS
    assert not foreign, f"the message names {sorted(foreign)}, not in the user's code:\n{message}"
    lines, start = inspect.getsourcelines(func)
    wanted = [start + i for i, text in enumerate(lines)
              if text.strip() == refusal_corpus.LINE[func]]
    assert len(wanted) == 1
    assert f"{inspect.getsourcefile(func)}:{wanted[0]}:" in message, message
    assert_suggests(message)


@pytest.mark.parametrize("func", refusal_corpus.VECTORIZED, ids=lambda f: f.__name__)
def test_former_refusals_match_the_loop(func):
    """Where every example returns a number, the batch computes what the loop does."""
    args = [np.abs(a) + 0.5 for a in _refusal_args(func)]
    if "v" in inspect.signature(func).parameters:
        args[-1] = args[-1] * 0.5      # (below some item of each row: the loop returns)
    want = np.array([func(*[a[i] for a in args]) for i in range(len(args[0]))])
    got = vmap(func)(*args)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("case", _case_params(CASES))
def test_unsupported_constructs_name_only_the_users_variables(case):
    message = _raise_error(case.vectorized("error"), *case.args(POSITIVE))
    named = set(re.findall(r"`([A-Za-z_]\w*)", message))
    source = inspect.getsource(case.func)
    assert named <= set(re.findall(r"[A-Za-z_]\w*", source)) | _CODE_WORDS, message


def test_a_later_pass_naming_an_engine_variable_is_reworded(monkeypatch):
    """The analysis of the user's code refuses in their terms; should a later pass (which
    sees the engine's lowered code) refuse naming a variable the engine made up, the
    message is said without it."""
    from vectorize.errors import Unsupported
    from vectorize.passes import simplify

    def refuse(func, ctx):
        name = ctx.namer.fresh("result")
        raise Unsupported(f"`{name}` is assigned only when the condition is true", None,
                          f"give `{name}` a value before the `if`")

    monkeypatch.setattr(simplify, "transform", refuse)
    message = _raise_error(vectorize(raise_batched, fallback="error"), POSITIVE)
    assert "`result`" not in message and "`raise_batched`" in message
    assert_suggests(message)
