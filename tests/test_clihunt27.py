"""Regressions the whole-file fuzz of the file rewriter found (benchmarks/fuzz_clihunt27.py):
each file is run as written and as ``rewrite_text`` rewrites it (in process), and every
``case_*`` must give the same containers, dtypes, shapes and bits, or raise the same exception
type (a 0-d array and a NumPy scalar of the same dtype and bits count as the same, the one
difference docs/cli.md allows)."""

from __future__ import annotations

import importlib.util
import itertools
import math
import textwrap

import numpy as np

from vectorize.rewrite import rewrite_text

_names = itertools.count()


def _load(path):
    spec = importlib.util.spec_from_file_location(f"clihunt27_{next(_names)}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def canonical(value):
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [canonical(v) for v in value])
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        kind = "array" if array.ndim else "number"
        return (kind, array.dtype.str, array.shape, array.tobytes())
    if isinstance(value, float):
        return ("float", "nan" if math.isnan(value) else value.hex())
    return (type(value).__name__, repr(value))


def outcome(function):
    try:
        return canonical(function())
    except Exception as exc:
        return ("raises", type(exc).__name__)


def both(source: str, tmp_path):
    """(original module, rewritten module, rewritten text)."""
    source = textwrap.dedent(source)
    result = rewrite_text(source, "case.py")
    assert not result.errors, [str(e) for e in result.errors]
    original, rewritten = tmp_path / "original.py", tmp_path / "rewritten.py"
    original.write_text(source)
    rewritten.write_text(result.text)
    return _load(original), _load(rewritten), result.text


def assert_same_cases(source: str, tmp_path) -> str:
    original, rewritten, text = both(source, tmp_path)
    cases = [name for name in vars(original) if name.startswith("case_")]
    assert cases
    for name in cases:
        assert outcome(getattr(original, name)) == outcome(getattr(rewritten, name)), name
    return text


ROWS = """
    import numpy as np
    from vectorize import vectorize

    NO_ROWS = np.zeros((0, 3))
    ROWS = np.linspace(-1.0, 2.0, 6).reshape(2, 3)
    NONE = np.linspace(0.0, 1.0, 0)


    @vectorize
    def same(x):
        return x


    @vectorize
    def ramp(x):
        if x > 1.0:
            return x * 2.0
        return x - 1.0


    def case_module_rows():
        return np.array([same(x) for x in NO_ROWS])


    def case_local_rows():
        rows = np.zeros((0, 2))
        return np.asarray([ramp(r) for r in rows])


    def case_reshaped_rows():
        rows = np.arange(0.0).reshape(0, 4)
        return np.array([ramp(r) for r in rows])


    def case_rows_with_items():
        return np.array([ramp(r) for r in ROWS])


    def case_no_numbers():
        return np.array([ramp(x) for x in NONE])
"""


def test_array_of_the_results_over_no_rows_keeps_its_shape(tmp_path):
    """``np.array([f(r) for r in rows])`` of an array of shape (0, 3) is ``np.array([])``, of
    shape (0,); the batched ``f(rows)`` was of shape (0, 3) (fuzz_clihunt27: a loop over the
    rows of an empty 2-d array). Such loops stay unless the rows are provably there; a loop over
    a 1-d array of no numbers is still one call."""
    text = assert_same_cases(ROWS, tmp_path)
    assert "np.array([same(x) for x in NO_ROWS])" in text
    assert "np.asarray([ramp(r) for r in rows])" in text
    assert "np.array([ramp(r) for r in rows])" in text
    assert "return ramp(ROWS)" in text
    assert "return ramp(NONE)" in text


ZIPPED_ROWS = """
    import numpy as np
    from vectorize import vectorize

    M = np.arange(9.0).reshape(3, 3)
    V = np.array([0.0, 10.0, 20.0])
    W = np.linspace(1.0, 3.0, 3)
    N = np.ones((3, 3)) * 2.0


    @vectorize
    def g(a, b):
        return a + b


    def case_comprehension():
        return [g(r, v) for r, v in zip(M, V)]


    def case_map():
        return list(map(g, M, V))


    def case_append():
        out = []
        for r, v in zip(M, V):
            out.append(g(r, v))
        return out


    def case_array():
        return np.array([g(v, r) for v, r in zip(V, M)])


    def case_sum():
        total = 0.0
        for r, v in zip(M, V):
            total += g(r, v)
        return total


    def case_numbers():
        return [g(v, w) for v, w in zip(V, W)]


    def case_rows_and_rows():
        return [g(r, s) for r, s in zip(M, N)]
"""


def test_zip_of_rows_and_numbers_pairs_item_with_item(tmp_path):
    """``[g(r, v) for r, v in zip(M, V)]`` with ``M`` of shape (3, 3) and ``V`` of (3,) adds
    ``V[i]`` to row ``i``; the batched ``g(M, V)`` broadcast ``V`` along each row (row ``i``
    plus all of ``V``: [0, 11, 22] where the loop gave [0, 1, 2]). A zip whose sequences are
    not provably of one number of dimensions stays a loop; one of two 1-d arrays, or of two
    arrays of rows, is still one call."""
    text = assert_same_cases(ZIPPED_ROWS, tmp_path)
    assert "g(M, V)" not in text and "g(V, M)" not in text
    assert "list(g(V, W))" in text
    assert "list(g(M, N))" in text


TWO_EXCEPTIONS = """
    import math

    from vectorize import vectorize

    ITEMS = [-5.0, 1.0, 3.0]


    @vectorize
    def f(x):
        if x == 1.0:
            return 1.0 / (x - x)
        if x < -3.0:
            raise ValueError("small")
        return math.sqrt(x - 2.0) if x > 2.0 else x


    @vectorize
    def one_kind(x):
        if x < -3.0:
            raise ValueError("small")
        return math.sqrt(x + 6.0)


    def case_comprehension():
        return [f(x) for x in [-5.0, 1.0]]


    def case_append():
        out = []
        for x in ITEMS:
            out.append(f(x))
        return out


    def case_sum():
        total = 0.0
        for x in ITEMS:
            total += f(x)
        return total


    def case_one_kind():
        return [one_kind(x) for x in [-1.0, -5.0, -7.0]]
"""


def test_a_function_that_raises_different_exceptions_keeps_its_loops(tmp_path):
    """The loop raises the first failing item's exception (ValueError for -5.0); the batched
    code checks ``1.0 / (x - x)`` first and raised ZeroDivisionError for the item 1.0 after it
    (fuzz_clihunt27). A function whose code may raise exceptions of more than one type keeps
    its loops; one that raises one type is still one call."""
    text = assert_same_cases(TWO_EXCEPTIONS, tmp_path)
    assert "[f(x) for x in [-5.0, 1.0]]" in text and "total += f(x)" in text
    assert "list(one_kind(np.asarray([-1.0, -5.0, -7.0])))" in text


RETURNS_ITS_ARGUMENT = """
    import numpy as np
    from vectorize import vectorize

    M = np.linspace(-1.0, 2.0, 6).reshape(2, 3)


    @vectorize
    def same(x):
        return x


    @vectorize
    def pair(x):
        return x, x * 2.0


    @vectorize
    def clipped(x, hi: float):
        if x > hi:
            return hi
        return x


    def case_list_of_rows():
        rows = np.linspace(-1.0, 2.0, 6).reshape(2, 3)
        out = [same(r) for r in rows]
        out[0][0] = 99.0
        return rows


    def case_append_rows():
        rows = np.linspace(-1.0, 2.0, 6).reshape(2, 3)
        out = []
        for r in rows:
            out.append(same(r))
        out[1][1] = 77.0
        return rows


    def case_direct_call():
        v = np.array([1.0, 2.0])
        same(v)[0] = 5.0
        return v


    def case_tuple():
        v = np.array([1.0, 2.0])
        pair(v)[0][1] = 5.0
        return v


    def case_wrapped():
        v = np.array([[1.0, 3.0]])
        clipped(v, 2.5)[0, 0] = 7.0
        return v
"""


def test_a_function_that_returns_its_argument_returns_a_new_array(tmp_path):
    """numpy.vectorize always returns new arrays; the rewritten ``same`` returned the caller's
    array (``x = np.asarray(x); return x``), so ``out = [same(r) for r in M]``, rewritten to
    ``list(same(M))``, held the rows of ``M`` itself and ``out[0][0] = 99.0`` changed ``M``
    (found while fuzzing with fuzz_clihunt27). Where the generated code may return its argument
    the wrapper copies the result."""
    assert_same_cases(RETURNS_ITS_ARGUMENT, tmp_path)
