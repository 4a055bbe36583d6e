"""The file rewriter's call-site rewrite never turns a working file into a crashing or
different one (issue 20): ``tests/cli_files/call_sites.py`` runs as written and rewritten
(``python -m vectorize -w``, a subprocess) with the same results; the loops over sequences
the rewriter cannot prove are arrays or lists of numbers (a generator, a set, a dict, fractions,
ragged lists, big ints, a function's parameter) stay loops, with the reason ``--explain``
gives; zips of sequences of one length and accumulations become one call."""

from __future__ import annotations

import shutil

import pytest
from test_cli import FILES, assert_same, cli, load

REWRITTEN = [
    'r["numbers"] = list(clip(np.asarray(NUMBERS)))',
    'r["local_numbers"] = list(clip(np.asarray([0.25, 1.0, -3.0]), 0.5))',
    'r["made"] = list(clip(np.linspace(-1.0, 1.0, 5) * 2.0))',
    'r["zip_rows"] = list(cosine(ROWS, OTHER))',
    "pairs.extend(cosine(ROWS, ROWS))",
    "total = sum(clip(values), total)",
    "product = math.prod(clip(values + 3.0), start=product)",
]
KEPT = [
    "return [clip(x) for x in xs]",
    "[clip(x) for x in SEEN]",
    "[clip(x) for x in {2.0, -2.0}]",
    "[clip(x) for x in TABLE]",
    "[float(clip(x)) for x in [Fraction(1, 2), Fraction(-1, 3)]]",
    "[rms(row) for row in RAGGED]",
    "[float(twice(n)) for n in BIG]",
    "[cosine(u, v) for u, v in zip(ROWS, ROWS[:2])]",
    "        total += clip(x)\n    return total",
    "        start += clip(x)",
    # int items (and an int `lo`) for a function rewritten for float64: the decorator gave
    # int results where `clip` returns `x` (tests/test_cli_call_sites_more.py)
    "        again = again + clip(x, 3)",
]


@pytest.fixture(scope="module")
def rewritten(tmp_path_factory):
    directory = tmp_path_factory.mktemp("call_sites")
    shutil.copy(FILES / "call_sites.py", directory)
    result = cli("-w", directory / "call_sites.py")
    assert result.returncode == 0, result.stderr.decode()
    return directory / "call_sites.py"


def test_the_rewritten_file_computes_what_the_original_does(rewritten):
    original = load(FILES / "call_sites.py").main()
    after = load(rewritten).main()
    for key in ("set", "local_set", "dict", "fractions", "big"):
        assert original.pop(key) == after.pop(key), key      # not numbers: compared as is
    assert_same(original, after)


def test_what_is_rewritten_and_what_stays(rewritten):
    text = rewritten.read_text()
    for line in REWRITTEN:
        assert line in text, line
    for kept in KEPT:
        assert kept in text, kept
    assert "import math\n" in text


def test_explain_says_why_loops_stay():
    out = cli("--explain", FILES / "call_sites.py").stdout.decode()
    for reason in ["the loop goes over `xs`, which the rewriter cannot prove is an array",
                   "the loop goes over `TABLE`, which the rewriter cannot prove",
                   "`zip(ROWS, ROWS[:2])` stops at the shortest of its sequences",
                   "`start` is not set to a number (`start = 0.0`) just before the loop"]:
        assert reason in out, reason
