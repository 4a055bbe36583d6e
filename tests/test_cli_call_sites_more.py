"""A differential harness for the CLI's call-site rewrite (issue 20): every function
``case_*`` of ``tests/cli_files/call_sites_more.py`` is run as written (with the decorators) and
as ``python -m vectorize -w`` rewrites the file, each module loaded afresh, and the results are
compared exactly: the same containers, lengths, dtypes, shapes and bits (NaNs of any payload
equal), or the same exception type. The one difference allowed is that a number the decorator
returns as a 0-d array may be a NumPy scalar of the same dtype and bits (docs/cli.md, "Loops over
examples at call sites"). Which loops become one call and which stay (with the reason
``--explain`` gives) is checked too, as are the files the rewriter must refuse (items that are
not numbers) or warn about (numbers of another dtype), and hypothesis-drawn bounds and sizes for
loops over ``np.linspace``.
"""

from __future__ import annotations

import ast
import importlib.util
import itertools
import math
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_cli import FILES, cli

SOURCE = FILES / "call_sites_more.py"
CASES = [node.name for node in ast.parse(SOURCE.read_text()).body
         if isinstance(node, ast.FunctionDef) and node.name.startswith("case_")]
_names = itertools.count()


def _load(path):
    spec = importlib.util.spec_from_file_location(f"call_sites_more_{next(_names)}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def canonical(value):
    """``value`` as nested tuples that are equal exactly when the values are the same:
    containers with their types, arrays with dtype, shape and bytes, numbers with their type
    and bits."""
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [canonical(v) for v in value])
    if isinstance(value, dict):
        return ("dict", [(canonical(k), canonical(v)) for k, v in value.items()])
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        kind = "array" if array.ndim else "number"     # a 0-d array is a NumPy number
        if array.dtype.kind in "fc":
            array = np.where(np.isnan(array), np.nan, array)     # one NaN
        return (kind, array.dtype.str, array.shape, array.tobytes())
    if isinstance(value, float):
        return ("float", "nan" if math.isnan(value) else value.hex())
    return (type(value).__name__, repr(value))


def outcome(function, *args):
    try:
        return canonical(function(*args))
    except Exception as exc:      # the same exception type, as the loop raised it
        return ("raises", type(exc).__name__)


NOT_NUMBERS = [('["a", "b"]', "with strings"), ("[None, 1.0]", "with None"),
               ('{"x": 1, "y": 2}', "with strings"), ("NAMES", "with strings")]


def _not_numbers(items: str) -> str:
    return textwrap.dedent(f"""\
        from vectorize import vectorize

        NAMES = ["a", "b"]


        @vectorize
        def twice(x):
            return x * 2


        def main():
            return [twice(x) for x in {items}]
        """)


SIDE_EFFECTS = {
    "printing": 'print("item", x)\n    return x * 2.0',
    "appending": "SEEN.append(x)\n    return x * 2.0",
}


def _side_effect(body: str) -> str:
    return (f"import numpy as np\n\nfrom vectorize import vectorize\n\nSEEN = []\n\n\n"
            f"@vectorize\ndef f(x):\n    {body}\n\n\n"
            f"def main():\n    return [f(x) for x in np.linspace(0.0, 1.0, 3)], SEEN\n")


PANDAS = textwrap.dedent("""\
    import pandas as pd

    from vectorize import vectorize


    @vectorize
    def f(x):
        return x * 2.0 if x > 1.5 else -x


    S = pd.Series([1.0, 2.0, 3.0], index=[10, 20, 30])


    def main():
        local = pd.Series([0.5, -1.0])
        return ([f(x) for x in local], [f(x) for x in S], [f(x) for x in S.values],
                list(map(f, S)), [f(x) for x in S.index])
    """)
try:
    import pandas  # noqa: F401
except ImportError:       # optional: the loops over pandas objects are checked where it is
    PANDAS = None


DRAWN = textwrap.dedent("""\
    import numpy as np

    from vectorize import vectorize


    @vectorize
    def soft(x, t=0.5):
        if abs(x) < t:
            return x * x / (2.0 * t)
        return abs(x) - 0.5 * t


    def listed(a, b, n):
        xs = np.linspace(a, b, n)
        return [soft(x) for x in xs]


    def totals(a, b, n):
        xs = np.linspace(a, b, n)
        total = 0.0
        for x in xs:
            total += soft(x, 0.25)
        best = -np.inf
        for x in xs:
            best = max(best, soft(x))
        return total, best
    """)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """One ``python -m vectorize -w`` over a directory holding the cases, the file of drawn
    inputs and the files it must refuse (which leave the others rewritten, exit 2)."""
    directory = tmp_path_factory.mktemp("call_sites_more")
    shutil.copy(SOURCE, directory)
    (directory / "drawn.py").write_text(DRAWN)
    for i, (items, _) in enumerate(NOT_NUMBERS):
        (directory / f"strings_{i}.py").write_text(_not_numbers(items))
    for name, body in SIDE_EFFECTS.items():
        (directory / f"{name}.py").write_text(_side_effect(body))
    if PANDAS is not None:
        (directory / "pandas_loops.py").write_text(PANDAS)
    result = cli("-w", directory)
    assert result.returncode == 2, result.stderr.decode()
    return directory, result.stderr.decode()


@pytest.fixture(scope="module")
def modules(run):
    directory, stderr = run
    path = directory / SOURCE.name
    return _load(SOURCE), _load(path), path.read_text(), stderr


@pytest.mark.parametrize("name", CASES)
def test_the_rewritten_file_gives_what_the_original_gives(modules, name):
    original, rewritten, _, _ = modules
    assert outcome(getattr(rewritten, name)) == outcome(getattr(original, name))


def test_the_harness_can_tell_them_apart():
    """What `canonical` must not take for the same (so that the test above can fail)."""
    pairs = [([1.0], [np.float64(1.0)]), ([np.float64(1.0)], [np.float32(1.0)]),
             ([np.array(0)], [np.array(0.0)]), ([1.0], (1.0,)), (np.ones(2), [1.0, 1.0]),
             (0.0, -0.0), (np.zeros(3), np.zeros((3, 1))), ("1.0", 1.0)]
    for a, b in pairs:
        assert canonical(a) != canonical(b), (a, b)
    assert canonical([np.array(2.0)]) == canonical([np.float64(2.0)])
    assert canonical(float("nan")) == canonical(-float("nan"))


REWRITTEN = {
    "case_module_list": "return list(ramp(np.asarray(VALUES)))",
    "case_local_display": "return list(ramp(np.asarray([0.25, -1.0, 4.0])))",
    "case_local_list_read": "return list(same(np.asarray(xs))), len(xs)",
    "case_linspace_arithmetic": "return list(ramp(xs))",
    "case_ndarray_module": "return list(norm(ROWS))",
    "case_range_int_function": "return list(twice(np.arange(-3, 4)))",
    "case_map": "return list(ramp(np.linspace(-1.0, 1.0, 5)))",
    "case_zip_rows_out": "return list(scaled(ROWS, OTHER))",
    "case_append": "out.extend(ramp(xs))",
    "case_array_of_results": "return ramp(xs)",
    "case_array_is_a_new_array": "result = np.array(same(xs))",
    "case_array_of_ints": "return twice(np.arange(5))",
    "case_stack_rows": "return scaled(ROWS, ROWS)",
    "case_nested_inner": "return [list(ramp(xs)) for _ in range(2)]",
    "case_raises_in_comprehension": "return list(checked(np.linspace(0.0, 1.0, 5)))",
    "case_total_int": "total = sum(twice(np.arange(10)), total)",
    "case_product": "product = math.prod(ramp(xs), start=product)",
    "case_max_and_min": "worst = min([worst, *ramp(xs)])",
    "case_zip_total": "total = sum(dot(ROWS, OTHER), total)",
}
REWRITTEN_ALSO = ["case_map_zip", "case_zip_rows", "case_strings_result",
                  "case_booleans_result", "case_total", "case_total_plain_assignment",
                  "case_total_result_first", "case_total_of_nothing"]
KEPT = {
    "over": "the loop goes over `xs`, which the rewriter cannot prove is an array",
    "case_generator_map": "the loop goes over `v for v in VALUES`",
    "case_set": "the loop goes over `{2.0, -2.0}`",
    "case_dict_keys": "the loop goes over `TABLE`",
    "case_mixed_numbers": "the items of `MIXED` are float64 and int64 numbers",
    "case_int_array_to_float_function": "the items of `INTS` are int64 numbers and `ramp` is "
                                        "rewritten for float64 `x`",
    "case_float32_items": "the items of `SINGLES` are float32 numbers",
    "case_row_lists": "the loop goes over `ROW_LISTS`",
    "case_name_rebound_later": "the loop goes over `REBOUND`",
    "case_zip_of_other_lengths": "`zip(ROWS, OTHER[:2])` stops at the shortest",
    "case_two_fors": "the comprehension has more than one `for`, an `if` or `async`",
    "case_filtered": "the comprehension has more than one `for`, an `if` or `async`",
    "case_tuple_results": "`both` returns a tuple",
    "case_array_of_ints_maybe_empty": "cannot prove `np.arange(0)` is not empty",
    "case_append_in_try": "the loop is inside a `try`",
    "case_total_in_suppress": "the loop is inside `with suppress(ValueError)`",
    "case_total_is_an_array": "`total` is not set to a number",
    "case_max_reversed": "the loop's body does more than",
    "case_loop_variable_read_after": "`x` is read after the loop",
    "case_indexed": "it stores into `out[i]`",
    "case_list_shadowed": "the batched call needs the builtin `list`",
    "case_closure_reads_the_variable": "`x` is read by `last`",
    "case_numpy_name_is_local": "the batched call needs `np` (the array module), which is a "
                                "local name here",
    "arange_of": "the rewriter cannot tell the dtype of the items of `np.arange(n)`",
    "case_enclosing_name": "the loop goes over `VALUES`, which the rewriter cannot prove",
    "case_local_list_changed": "the loop goes over `xs`, which the rewriter cannot prove",
}


# functions without a loop of their own (theirs is `over`'s, or at module level), and the
# module-level loops that stay (their first line -> the reason)
UNCHANGED = ["case_generator", "case_module_level_loop", "case_items_of_unknown_dtype"]
KEPT_AT_MODULE_LEVEL = {
    "for v in np.linspace(0.0, 1.0, 3):": "`v` is read after the loop, where it holds the last",
}


def _functions(text: str) -> dict:
    tree = ast.parse(text)
    return {node.name: ast.get_source_segment(text, node) for node in tree.body
            if isinstance(node, ast.FunctionDef)}


def test_what_is_rewritten_and_what_stays(modules):
    _, _, text, _ = modules
    functions = _functions(text)
    original = _functions(SOURCE.read_text())
    assert set(REWRITTEN) | set(REWRITTEN_ALSO) | set(KEPT) | set(UNCHANGED) >= set(CASES)
    for name, line in REWRITTEN.items():
        assert line in functions[name], name
    for name in list(REWRITTEN) + REWRITTEN_ALSO:
        assert functions[name] != original[name], name
    for name in list(KEPT) + UNCHANGED:
        assert functions[name] == original[name], name
    for line in KEPT_AT_MODULE_LEVEL:
        assert f"\n{line}\n" in text, line


def test_explain_says_why_each_loop_stays():
    from vectorize.rewrite import rewrite_text
    from vectorize.rewrite.explain import collect_outcome
    result = rewrite_text(SOURCE.read_text(), str(SOURCE), explain=True)
    out = collect_outcome(result, str(SOURCE)).text()
    functions = _functions(SOURCE.read_text())
    lines = SOURCE.read_text().splitlines()
    stays = {}
    chunks = out.split("\n\n")
    for chunk in chunks:
        head = chunk.strip().splitlines()[0] if chunk.strip() else ""
        if "stays a loop" in head:
            number = int(head.split(":")[1])
            stays[number] = chunk
    spans = {}
    for name in KEPT:
        start = next(i for i, line in enumerate(lines, 1) if line.startswith(f"def {name}("))
        spans[name] = (start, start + functions[name].count("\n"))
    for first in KEPT_AT_MODULE_LEVEL:
        start = lines.index(first) + 1
        spans[first] = (start, start)
    for name, reason in {**KEPT, **KEPT_AT_MODULE_LEVEL}.items():
        start, end = spans[name]
        found = [chunk for number, chunk in stays.items() if start <= number <= end]
        assert found, f"{name}: no loop that stays"
        assert any(reason in " ".join(chunk.split()) for chunk in found), (name, found)


def test_warnings_name_the_items_of_another_dtype(modules):
    *_, stderr = modules
    for items in ("`MIXED`", "`INTS`", "`SINGLES`"):
        assert f"(the items of {items}), but is rewritten for float64 `x`" in stderr, items
    assert stderr.count("warning:") == 3, stderr
    line = next(i for i, text in enumerate(SOURCE.read_text().splitlines(), 1)
                if "for x in MIXED" in text)
    assert f"{SOURCE.name}:{line}:13: warning: `same` gets float64 and int64 numbers" in stderr


def test_the_rewritten_file_passes_ruff(modules, tmp_path):
    *_, text, _ = modules
    path = tmp_path / "rewritten.py"
    path.write_text(text)
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache",
                             "--isolated", "--select", "E,F,W", "--line-length", "100",
                             str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_items_that_are_not_numbers_leave_the_file_as_it_is(run):
    """The rewritten function, specialized for float64 `x`, would fail or compute something
    else on them (the decorator ran it on each as it is): an error, the file unchanged."""
    directory, stderr = run
    for i, (items, words) in enumerate(NOT_NUMBERS):
        path = directory / f"strings_{i}.py"
        assert f"{path}:12:13: error: `twice` is called here {words}" in stderr, items
        assert path.read_text() == _not_numbers(items)
    assert stderr.count("error:") == len(NOT_NUMBERS) + len(SIDE_EFFECTS)


@pytest.mark.skipif(PANDAS is None, reason="pandas is not installed (optional)")
def test_loops_over_pandas_objects_stay_and_give_the_same(run, tmp_path):
    """A Series (and its `.values`, its index) is not an array the rewriter can see: the loops
    stay, and the file computes what it did."""
    directory, _ = run
    text = (directory / "pandas_loops.py").read_text()
    assert "def f(x):\n    x = np.asarray(x)" in text
    assert PANDAS[PANDAS.index("def main"):] in text
    original = tmp_path / "original.py"
    original.write_text(PANDAS)
    assert canonical(_load(directory / "pandas_loops.py").main()) == \
        canonical(_load(original).main())


def test_a_function_with_side_effects_leaves_the_file_as_it_is(run):
    """Printing or appending to a global per example: the function is not rewritten (an error
    that points at the statement), so neither is the loop, and the file runs as before."""
    directory, stderr = run
    for name, body in SIDE_EFFECTS.items():
        path = directory / f"{name}.py"
        assert path.read_text() == _side_effect(body), name
        assert f"{path}:10:5: error:" in stderr, name


N_VALUES = st.floats(allow_nan=True, allow_infinity=True, width=64)


@pytest.fixture(scope="module")
def drawn(run, tmp_path_factory):
    """A file whose loops go over `np.linspace(a, b, n)` with `a`, `b`, `n` parameters."""
    directory, _ = run
    original = tmp_path_factory.mktemp("drawn") / "original.py"
    original.write_text(DRAWN)
    path = directory / "drawn.py"
    text = path.read_text()
    assert "return list(soft(xs))" in text and "total = sum(soft(xs, 0.25), total)" in text
    assert "best = max([best, *soft(xs)])" in text
    return _load(original), _load(path)


@settings(max_examples=40, deadline=None)
@given(a=N_VALUES, b=N_VALUES, n=st.sampled_from([0, 1, 5, 33]))
def test_drawn_bounds_and_sizes(drawn, a, b, n):
    original, rewritten = drawn
    with np.errstate(all="ignore"):
        for name in ("listed", "totals"):
            assert outcome(getattr(rewritten, name), a, b, n) == \
                outcome(getattr(original, name), a, b, n), name


def test_a_large_sequence_sums_to_the_same_bits(drawn):
    """10,000 items added in the loop's order: the same total to the last bit."""
    original, rewritten = drawn
    for _ in range(2):
        assert outcome(rewritten.totals, -3.0, 7.0, 10_000) == \
            outcome(original.totals, -3.0, 7.0, 10_000)


@pytest.mark.parametrize("body, new", [
    ("return np.where(x > 0, x, -x)", True),
    ("return x * 2.0", True),
    ("return 0.0", True),
    ("y = np.full(len(x), 1.0)\n    y[x > 0] = 2.0\n    return y", True),
    ("y = x.astype(np.float64)\n    return y", True),
    ("return x", False),
    ("y = x\n    return y", False),
    ("return x.reshape(-1)", False),
    ("return np.asarray(x)", False),
    ("return x.astype(np.float64, copy=False)", False),
    ("if x.any():\n        return x * 2.0\n    return x", False),
    ("y = x * 2.0\n    y = x\n    return y", False),
])
def test_which_generated_functions_return_a_new_array(body, new):
    """`np.array([f(x) for x in xs])` becomes `f(xs)` only where that is a new array."""
    from vectorize.rewrite.call_sites import returns_new_array
    assert returns_new_array(f"def f(x):\n    {body}\n", "np") is new
