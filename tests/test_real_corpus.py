"""Every function of the real-style corpus (`real_corpus.py`) against ``numpy.vectorize``.

For each function, two tests: on clean inputs of its domain, and (where the function can raise)
on inputs with a few examples where it raises. Each runs N = 0, 1, 5 and three calls of fresh
data at the large N (2e4, 5e3 for the few whose scalar code runs hundreds of iterations per
example: `Case.large`), and passes when
``vectorize(f, fallback="error")`` returns what ``numpy.vectorize`` returns (values, dtype,
shape) or raises the exception type it raises, or when it refuses with a located
``VectorizeError`` and ``vectorize(f, fallback="warn")`` then matches ``numpy.vectorize``. A
different answer, or an exception other than ``VectorizeError`` where ``numpy.vectorize``
returns, fails.

`KNOWN` lists what today's engine gets wrong, as strict xfails: when the engine is fixed the
test XPASSes, which fails the run; then delete the entry. ``python tests/real_corpus.py
--report`` prints the counts per construct tag.
"""

from __future__ import annotations

import zlib

import pytest
from real_corpus import CORPUS, classify, has_raising_inputs

# (function, inputs) -> why it fails today
KNOWN: dict = {}


def _params(variant):
    out = []
    for name in CORPUS:
        if variant == "raising" and not has_raising_inputs(name):
            continue      # its strategy has no raising examples: the clean test covers it
        reason = KNOWN.get((name, variant))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(name, marks=marks, id=name))
    return out


def _check(name, variant):
    status, detail = classify(name, seed=zlib.crc32(f"{name}/{variant}".encode()),
                              variants=(variant == "raising",))
    assert status in ("ok", "refused"), f"{status}: {detail}"


@pytest.mark.parametrize("name", _params("clean"))
def test_clean_inputs(name):
    _check(name, "clean")


@pytest.mark.parametrize("name", _params("raising"))
def test_raising_inputs(name):
    _check(name, "raising")
