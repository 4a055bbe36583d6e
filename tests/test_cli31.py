"""The file rewriter never turns a working file into a crashing or different one: each file
here runs as written (the decorators) and rewritten (`rewrite_text`), and must give the same
results (values and dtypes; a 0-d array and the NumPy scalar of it are the same number,
docs/cli.md) or raise the same exception type.

- a `@vectorize` function handed the items of an array (NumPy scalars), which the decorator
  hands to it as they are (`1.0 / np.float64(0.0)` is inf, `round` rounds as NumPy does,
  int64 wraps): the call goes to the function's version for NumPy scalars (`<name>_numpy`);
- `for i, x in enumerate(xs):` statement loops: their calls are checked as comprehensions'
  are (and get the version for NumPy scalars);
- issue 20's acceptance: sequences that are not an array or list of numbers, `zip` of rows
  with a `signature=` function, accumulations."""

from __future__ import annotations

import textwrap
import warnings

import numpy as np
import pytest

from vectorize.rewrite import rewrite_text

HEAD = '''
import math

import numpy as np

from vectorize import vectorize

XS = np.linspace(-1.0, 1.0, 3)
R = np.array([0.0005, 0.0015, 2.675])
BIG = np.array([1099511627776, 3])
ROWS = np.arange(6.0).reshape(3, 2)
COLS = np.arange(6.0, 12.0).reshape(3, 2)


@vectorize
def inv(x):
    return 1.0 / x


@vectorize
def div(x, d):
    return x / d


@vectorize
def r3(x):
    return round(x, 3)


@vectorize
def sq(n: int):
    return n * n


@vectorize(signature="(n),(n)->()")
def dot(u, v):
    return u[0] * v[0] + u[1] * v[1]
'''


def _run(text: str):
    namespace: dict = {}
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exec(compile(text, "case.py", "exec"), namespace)
        except Exception as exc:  # noqa: BLE001 -- the exception type is the result
            return type(exc)
    return namespace["RESULT"]


def _same(a, b) -> bool:
    if isinstance(a, type) or isinstance(b, type):
        return a is b
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    if type(a) in (int, float, bool) or type(b) in (int, float, bool):   # Python numbers
        return type(a) is type(b) and (a == b or a != a and b != b)
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True)


def _compare(site: str):
    text = textwrap.dedent(HEAD) + "\n\n" + textwrap.dedent(site)
    outcome = rewrite_text(text, "case.py")
    assert not outcome.errors, outcome.errors
    before, after = _run(text), _run(outcome.text)
    assert _same(before, after), (before, after, outcome.text.split("ROWS = ")[1])
    return outcome


def _sites_file(sites: list) -> str:
    """One file of the sites, each the body of its function ``site_<i>`` (one rewrite for
    all of them: the file must stay fast)."""
    parts = [textwrap.dedent(HEAD)]
    for i, site in enumerate(sites):
        parts.append(f"\n\ndef site_{i}():\n" + textwrap.indent(site, "    ")
                     + "    return RESULT\n")
    return "".join(parts)


def _call(namespace: dict, name: str):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return namespace[name]()
        except Exception as exc:  # noqa: BLE001 -- the exception type is the result
            return type(exc)


def _namespaces(sites: list):
    text = _sites_file(sites)
    outcome = rewrite_text(text, "case.py")
    assert not outcome.errors, outcome.errors
    spaces = []
    for source in (text, outcome.text):
        namespace: dict = {}
        exec(compile(source, "case.py", "exec"), namespace)
        spaces.append(namespace)
    return outcome, spaces


def _check_site(namespaces, i: int):
    outcome, (before, after) = namespaces
    a, b = _call(before, f"site_{i}"), _call(after, f"site_{i}")
    body = outcome.text.split(f"def site_{i}():")[1].split("\ndef ")[0]
    assert _same(a, b), (a, b, body)
    return body


NUMPY_SCALAR_SITES = [
    "RESULT = [inv(x) for x in XS]\n",
    "RESULT = list(map(inv, XS))\n",
    "RESULT = []\nfor x in XS:\n    RESULT.append(inv(x))\n",
    "RESULT = 0.0\nfor x in XS:\n    RESULT += inv(x)\n",
    "RESULT = np.array([inv(x) for x in XS])\n",
    "RESULT = []\nfor i, x in enumerate(XS):\n    RESULT.append(inv(x))\n",
    "RESULT = [inv(x) for i, x in enumerate(XS)]\n",
    "RESULT = list(inv(x) for x in XS)\n",
    "RESULT = []\nfor x in XS:\n    RESULT.append(inv(x))\n    RESULT.append(r3(x))\n",
    "RESULT = [r3(x) for x in R]\n",
    "RESULT = []\nfor i, x in enumerate(R):\n    RESULT.append(r3(x))\n",
    "RESULT = [sq(n) for n in BIG]\n",
    "RESULT = [div(x, 0.0) for x in XS]\n",
    "RESULT = [div(x, 2.0) for x in XS]\n",
    "RESULT = [div(x, y) for x, y in zip(XS, XS)]\n",
    "RESULT = [inv(x) for x in list(XS)]\n",
    "RESULT = []\nfor x in reversed(XS):\n    RESULT.append(inv(x))\n",
    "RESULT = list(map(inv, sorted(XS)))\n",
]


@pytest.fixture(scope="module")
def numpy_scalar_sites():
    return _namespaces(NUMPY_SCALAR_SITES)


@pytest.mark.parametrize("i", range(len(NUMPY_SCALAR_SITES)))
def test_numpy_scalar_items_compute_as_the_decorator(numpy_scalar_sites, i):
    body = _check_site(numpy_scalar_sites, i)
    assert "_numpy" in body
    assert not numpy_scalar_sites[0].warnings, numpy_scalar_sites[0].warnings


def test_python_number_items_keep_the_python_version():
    # (Python floats: the rewritten function itself, which raises as the decorator's did)
    outcome = _compare("RESULT = [inv(x) for x in [1.0, 0.0]]\n")
    assert "inv_numpy" not in outcome.text


def test_the_version_for_numpy_scalars_is_made_once_and_only_where_it_differs():
    outcome = _compare("A = [inv(x) for x in XS]\nB = [inv(x) for x in XS]\n"
                       "RESULT = [dot(u, v) for u, v in zip(ROWS, COLS)]\n")
    assert outcome.text.count("def inv_numpy(") == 1
    assert "dot_numpy" not in outcome.text     # signature=: NumPy's semantics already


def test_an_enumerate_statement_loop_is_checked_as_a_comprehension():
    # ints to a float64 `x`: the same warning as `[inv(x) for i, x in enumerate(...)]`
    text = textwrap.dedent(HEAD) + "\n\nRESULT = []\nfor i, x in enumerate(range(1, 4)):\n" \
        "    RESULT.append(inv(x))\n"
    outcome = rewrite_text(text, "case.py")
    assert any("int64 numbers" in str(w) for w in outcome.warnings), outcome.warnings
    text = textwrap.dedent(HEAD) + "\n\nRESULT = []\nfor i, x in enumerate(['a', 'b']):\n" \
        "    RESULT.append(inv(x))\n"
    assert rewrite_text(text, "case.py").errors


ISSUE_20_SITES = [
    # sequences that are not an array or list of numbers: left as they are
    "RESULT = [inv(x) for x in (v for v in [1.0, 2.0])]\n",
    "RESULT = sorted(float(v) for v in [inv(x) for x in {1.0, 2.0}])\n",
    "RESULT = [inv(x) for x in {1.0: 'a', 2.0: 'b'}]\n",
    "RESULT = [inv(x) for x in [1, 2.5]]\n",
    "RESULT = [inv(x) for x in [1.0, 0.0]]\n",
    "RESULT = [inv(x) for x in [[1.0, 2.0], [4.0, 8.0]]]\n",
    "RESULT = [inv(x) for x in np.array([[1.0, 2.0], [4.0, 0.0]])]\n",
    "RESULT = [inv(x) for x in ROWS]\n",            # rows: Python floats per example
    "RESULT = []\nfor x in ROWS:\n    RESULT.append(inv(x))\n",
    "from fractions import Fraction\nFR = [Fraction(1, 2), Fraction(1, 3)]\n"
    "RESULT = [float(inv(x)) for x in FR]\n",
    "def site(xs):\n    return [inv(x) for x in xs]\n\n\nRESULT = site(iter([2.0, 4.0]))\n",
    # zip of rows with a signature= function
    "RESULT = [dot(u, v) for u, v in zip(ROWS, COLS)]\n",
    "RESULT = [dot(u, v) for u, v in zip(ROWS, COLS[:2])]\n",
    "RESULT = np.array([dot(u, v) for u, v in zip(ROWS, ROWS)])\n",
    # accumulations
    "RESULT = 0.0\nfor x in [0.1, 0.2, 0.3, 1e16, -1e16]:\n    RESULT += r3(x)\n",
    "RESULT = 1.0\nfor x in XS:\n    RESULT *= inv(x)\n",
    "RESULT = -np.inf\nfor x in XS:\n    RESULT = max(RESULT, inv(x))\n",
    "RESULT = 0.0\nfor x in [1.0, 0.0]:\n    RESULT += inv(x)\n",
    "RESULT = 0\nfor u, v in zip(ROWS, COLS):\n    RESULT += dot(u, v)\n",
]


@pytest.fixture(scope="module")
def issue_20_sites():
    return _namespaces(ISSUE_20_SITES + BIND_SITES)


@pytest.mark.parametrize("i", range(len(ISSUE_20_SITES)))
def test_issue_20_sites(issue_20_sites, i):
    _check_site(issue_20_sites, i)


BIND_SITES = [
    # (`div` needs `d`: each call raises TypeError, and for no items there is none)
    "RESULT = list(map(div, np.arange(0.0)))\n",
    "RESULT = [div(x) for x in np.zeros(0)]\n",
    "RESULT = list(map(div, XS))\n",
]


@pytest.mark.parametrize("i", range(len(BIND_SITES)))
def test_a_call_that_does_not_bind_the_parameters_stays(issue_20_sites, i):
    _check_site(issue_20_sites, len(ISSUE_20_SITES) + i)


def test_a_local_list_handed_to_map_is_seen():
    # (map, zip and enumerate only iterate over it: its items are the display's)
    text = textwrap.dedent(HEAD) + "\n\ndef site():\n    xs = [1, 2.5]\n" \
        "    return list(map(inv, xs))\n\n\nRESULT = site()\n"
    outcome = rewrite_text(text, "case.py")
    assert any("float64 and int64" in str(w) for w in outcome.warnings), outcome.warnings
    outcome = _compare("def site():\n    xs = [2.0, 0.5]\n    return list(map(inv, xs))\n\n\n"
                       "RESULT = site()\n")
    assert "list(inv(np.asarray(xs)))" in outcome.text


@pytest.mark.parametrize("items", ["['a', 'b']", "[None, 1.0]", "('x',)"])
def test_items_that_are_not_numbers_leave_the_file_as_it_is(items):
    text = textwrap.dedent(HEAD) + f"\n\nRESULT = [inv(x) for x in {items}]\n"
    outcome = rewrite_text(text, "case.py")
    assert outcome.errors and outcome.text == text
